import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { EmbeddedPostgresError } from './embeddedError';
import {
  binariesFor,
  dataDirFor,
  installedBinaries,
  ownedDataDir,
  serviceUser,
  type Binaries,
  type ServiceUser,
} from './embeddedPlaces';

export { EmbeddedPostgresError } from './embeddedError';

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Tests trade durability for speed; the development database keeps fsync on. */
  durable?: boolean;
  /** Extra `name=value` server settings, e.g. `shared_buffers=1GB` for a benchmark. */
  settings?: string[];
  /** The cluster's log once it is ready (a benchmark lines it up with its slow seconds). */
  onLog?: (chunk: Buffer) => void;
}

export interface EmbeddedDatabase {
  url: string;
  /** Stops the cluster if this process started it; a no-op when it joined a running one. */
  stop: () => Promise<void>;
}

const USER = 'locker';
// The embedded cluster listens on loopback only; the password keeps other local users out
// of casual reach, it is not a production secret.
const PASSWORD = 'locker-embedded';
const START_TIMEOUT_MS = 60_000;

export function embeddedUrl(port: number, database = 'postgres'): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The line of PostgreSQL's output that says what went wrong. */
function reason(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const telling = lines.find((l) => /FATAL|ERROR|error:|could not|Permission denied/i.test(l));
  return (telling ?? lines.at(-1) ?? 'no output').replace(/^\S+ \S+ \S+ \[\d+\] /, '');
}

function spawnAs(
  file: string,
  args: string[],
  user: ServiceUser | undefined,
  cwd: string,
): ChildProcess {
  return spawn(file, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  });
}

async function initdb(binaries: Binaries, dataDir: string, user: ServiceUser | undefined) {
  const passwordFile = path.join(tmpdir(), `locker-pg-password-${randomBytes(6).toString('hex')}`);
  await writeFile(passwordFile, PASSWORD + '\n', { mode: 0o600 });
  if (user) await chown(passwordFile, user.uid, user.gid);
  try {
    const child = spawnAs(
      binaries.initdb,
      [
        `--pgdata=${dataDir}`,
        '--auth=scram-sha-256',
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      user,
      path.dirname(dataDir),
    );
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => {
      child.once('error', (error) => {
        output += error.message;
        resolve(-1);
      });
      child.once('close', resolve);
    });
    if (code !== 0) {
      throw new EmbeddedPostgresError(
        `the embedded PostgreSQL could not create its data folder ${dataDir} (${reason(output)}): remove that folder and try again, or set DATABASE_URL to a PostgreSQL of your own`,
      );
    }
  } finally {
    await rm(passwordFile, { force: true });
  }
}

interface Started {
  child: ChildProcess;
  /** false: it exited before it was ready. */
  ready: boolean;
  output: string;
}

function startPostgres(
  binaries: Binaries,
  dataDir: string,
  options: EmbeddedOptions,
  user: ServiceUser | undefined,
): Promise<Started> {
  const child = spawnAs(
    binaries.postgres,
    [
      '-D',
      dataDir,
      '-p',
      String(options.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${tmpdir()}`,
      '-c',
      'max_connections=200',
      ...(options.durable === false ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off'] : []),
      ...(options.settings ?? []).flatMap((setting) => ['-c', setting]),
    ],
    user,
    dataDir,
  );
  return new Promise((resolve) => {
    let output = '';
    let settled = false;
    const settle = (ready: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ child, ready, output });
    };
    const timer = setTimeout(() => {
      output += `not ready after ${START_TIMEOUT_MS / 1000} s`;
      child.kill('SIGKILL');
      settle(false);
    }, START_TIMEOUT_MS);
    // Keep reading its log for as long as it runs: a full pipe would stall it.
    child.stdout!.resume();
    child.stderr!.on('data', (chunk: Buffer) => {
      if (settled) return options.onLog?.(chunk);
      output += chunk.toString();
      if (output.includes('database system is ready to accept connections')) settle(true);
    });
    child.once('error', (error) => {
      output += error.message;
      settle(false);
    });
    child.once('exit', () => settle(false));
  });
}

/**
 * Starts the embedded PostgreSQL under `dataDir`, or joins it when another process (the
 * server, the operator CLI, a cluster left behind by a killed process) already runs it.
 * Every failure is an EmbeddedPostgresError whose message names the cause and the fix.
 */
export async function ensureEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const url = embeddedUrl(options.port);
  const joined = { url, stop: async () => {} };
  if (await portAnswers(options.port)) return joined;

  const installed = installedBinaries();
  const user = await serviceUser();
  const binaries = user ? await binariesFor(user, installed) : installed;
  const configured = path.resolve(options.dataDir);
  const dataDir = user ? await dataDirFor(user, configured) : configured;
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await ownedDataDir(dataDir, user);
    await initdb(binaries, dataDir, user);
  }
  const started = await startPostgres(binaries, dataDir, options, user);
  if (!started.ready) {
    // Another process may have won the race to start the same cluster.
    if (await portAnswers(options.port)) return joined;
    throw new EmbeddedPostgresError(
      `the embedded PostgreSQL in ${configured} did not start on port ${options.port} (${reason(started.output)}): set EMBEDDED_PG_PORT to a free port, or remove that folder to start afresh, or set DATABASE_URL to a PostgreSQL of your own`,
    );
  }
  const child = started.child;
  // A process that exits without stop() (process.exit on an error) takes its cluster along
  // rather than leaving it running unowned; a killed one leaves it to be joined next time.
  const stopOnExit = () => child.kill('SIGINT');
  process.once('exit', stopOnExit);
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        process.off('exit', stopOnExit);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGINT'); // fast shutdown: active transactions roll back
      }),
  };
}
