import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';

export type Sql = postgres.Sql;
export type TransactionSql = postgres.TransactionSql;

export interface ConnectOptions {
  max?: number;
  /** For writes of soft state whose last milliseconds may be lost in a crash. */
  asynchronousCommit?: boolean;
  /** A statement waiting longer than this for a row lock fails (`lock_timeout`). */
  lockTimeoutMs?: number;
  /**
   * Every prepared statement planned once a connection (`plan_cache_mode`), for a pool whose
   * statements are keyed writes, whatever their parameters. By default PostgreSQL plans a
   * statement again at each run while that looks cheaper than its generic plan, which for a
   * batch `unnest`ing array parameters is always: the planner sees each array's length
   * (issue 28: the heartbeats' batch was planned at every run, its planning costing more
   * than its run).
   */
  genericPlans?: boolean;
}

/** The one postgres.js client of a process. Timestamps come back as `Date`. */
export function connect(url: string, options: ConnectOptions = {}): Sql {
  const { address, socketDirectory } = unixSocketOf(url);
  return postgres(address, {
    ...(socketDirectory ? { host: socketDirectory } : {}),
    max: options.max ?? 20,
    onnotice: () => {},
    connection: {
      application_name: 'parcel-locker',
      ...(options.asynchronousCommit ? { synchronous_commit: 'off' } : {}),
      ...(options.lockTimeoutMs ? { lock_timeout: options.lockTimeoutMs } : {}),
      ...(options.genericPlans ? { plan_cache_mode: 'force_generic_plan' } : {}),
    },
  });
}

/**
 * libpq's convention for a Unix-domain socket: `?host=/run/postgresql` names the directory
 * of the server's socket (the URL's host and port still name the socket file's port). A
 * database on the same machine answers a query over it with less of the kernel's work than
 * over loopback TCP. postgres.js would send an unknown query parameter to the server as a
 * setting, so it is taken out of the address.
 */
export function unixSocketOf(url: string): { address: string; socketDirectory?: string } {
  const query = url.indexOf('?');
  if (query < 0) return { address: url };
  const params = new URLSearchParams(url.slice(query + 1));
  const host = params.get('host');
  if (!host?.startsWith('/')) return { address: url };
  params.delete('host');
  const rest = params.toString();
  return { address: url.slice(0, query) + (rest ? `?${rest}` : ''), socketDirectory: host };
}

/**
 * The same database over the Unix-domain socket of a cluster on this machine (the embedded
 * one puts its socket in the temporary directory), or `undefined` when there is none.
 */
export function localSocketUrl(url: string, directory = tmpdir()): string | undefined {
  const u = new URL(url);
  if (!['127.0.0.1', 'localhost'].includes(u.hostname) || u.searchParams.has('host')) return;
  if (!existsSync(path.join(directory, `.s.PGSQL.${u.port || 5432}`))) return;
  u.searchParams.set('host', directory);
  return u.toString();
}
