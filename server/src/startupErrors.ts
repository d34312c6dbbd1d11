/**
 * Why the server (or the operator CLI, or `pnpm start`) could not start, as one sentence
 * naming the cause and the fix. The callers print it and exit non-zero, without a stack.
 */
import { ConfigError } from './config';
import { EmbeddedPostgresError } from './db/embeddedError';

interface SystemError {
  code?: string;
  syscall?: string;
  port?: number;
  address?: string;
  hostname?: string;
  message?: string;
}

/** The database the process was pointed at, without its password. */
export function describeDatabase(databaseUrl: string | undefined): string {
  if (!databaseUrl) return 'the embedded PostgreSQL';
  try {
    const url = new URL(databaseUrl);
    return `the database at ${url.hostname}:${url.port || 5432}${url.pathname}`;
  } catch {
    return 'the database of DATABASE_URL';
  }
}

const DATABASE_CODES: Record<string, string> = {
  ECONNREFUSED: 'refused the connection',
  ENOTFOUND: 'has a host name that does not resolve',
  EAI_AGAIN: 'has a host name that does not resolve',
  ETIMEDOUT: 'did not answer in time',
  CONNECT_TIMEOUT: 'did not answer in time',
  ECONNRESET: 'closed the connection',
  '28P01': 'refused the user name or password',
  '28000': 'refused the user',
  '3D000': 'has no such database',
  '57P03': 'is still starting up',
};

/** One sentence for a failure to start; undefined when it is not a known startup failure. */
export function startupProblem(
  error: unknown,
  databaseUrl: string | undefined,
): string | undefined {
  if (error instanceof ConfigError || error instanceof EmbeddedPostgresError) return error.message;
  const e = (error ?? {}) as SystemError;
  if (e.syscall === 'listen' && e.code === 'EADDRINUSE') {
    return `port ${e.port} is already in use (is the server already running?): stop what uses it, or set PORT to a free port`;
  }
  if (e.syscall === 'listen' && e.code === 'EACCES') {
    return `port ${e.port} needs privileges to listen on: set PORT to a port above 1023`;
  }
  if (e.syscall === 'listen' && e.code === 'EADDRNOTAVAIL') {
    return `HOST ${e.address} is not an address of this machine: set HOST to one of its addresses, or 0.0.0.0`;
  }
  const what = e.code ? DATABASE_CODES[e.code] : undefined;
  if (what) {
    const fix = databaseUrl
      ? 'check DATABASE_URL and that the database server runs'
      : 'check EMBEDDED_PG_PORT, or unset it to use the default';
    return `${describeDatabase(databaseUrl)} cannot be reached: it ${what} (${e.message ?? e.code}): ${fix}`;
  }
  return undefined;
}

/** The sentence to print for any failure to start, a known one or not. */
export function startupMessage(error: unknown, databaseUrl: string | undefined): string {
  return (
    startupProblem(error, databaseUrl) ??
    `could not start: ${error instanceof Error ? error.message : String(error)} (LOG_LEVEL=debug shows the details)`
  );
}
