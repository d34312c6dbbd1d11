import type { Middleware } from 'koa';
import type { Sql } from '../db/connect';
import { hashSecret, sameHash } from '../domain/secrets';
import { bearerToken } from '../http/bearer';
import { ProblemError, problem } from '../http/problem';
import type { TerminalAuthCache } from './authCache';

export interface TerminalStation {
  id: string;
  code: string;
  name: string;
  cabinetVersion: string;
  supportPhone: string;
  idleTimeoutSeconds: number;
  freeStorageHours: number;
}

export interface AuthenticatedTerminal {
  id: string;
  status: 'online' | 'offline' | 'disabled';
  /** Null when the terminal's station no longer exists. */
  station: TerminalStation | null;
}

declare module 'koa' {
  interface DefaultState {
    terminal: AuthenticatedTerminal;
  }
}

interface Row {
  id: string;
  status: AuthenticatedTerminal['status'];
  token_hash: Buffer;
  next_token_hash?: Buffer | null;
  station_id: string | null;
  code: string;
  name: string;
  cabinet_version: string;
  support_phone: string;
  idle_timeout_seconds: number;
  free_storage_hours: number;
}

const columns = (sql: Sql) => sql`
  t.id, t.status, t.token_hash, t.station_id, s.code, s.name, s.cabinet_version,
  s.support_phone, s.idle_timeout_seconds, s.free_storage_hours`;

function terminalOf(row: Row): AuthenticatedTerminal {
  return {
    id: row.id,
    status: row.status,
    station: row.station_id
      ? {
          id: row.station_id,
          code: row.code,
          name: row.name,
          cabinetVersion: row.cabinet_version,
          supportPhone: row.support_phone,
          idleTimeoutSeconds: row.idle_timeout_seconds,
          freeStorageHours: row.free_storage_hours,
        }
      : null,
  };
}

async function lookUp(
  sql: Sql,
  hash: Buffer,
  cache: TerminalAuthCache,
): Promise<AuthenticatedTerminal | undefined> {
  const [row] = await sql<Row[]>`
    select ${columns(sql)}, t.next_token_hash
      from terminals t
      left join stations s on s.id = t.station_id
     where (t.token_hash = ${hash} or t.next_token_hash = ${hash}) and t.revoked_at is null`;
  if (!row) return undefined;
  if (!sameHash(row.token_hash, hash)) {
    if (!row.next_token_hash || !sameHash(row.next_token_hash, hash)) return undefined;
    // The rotated token's first use (docs/terminal-extensions.md, "Rotating device
    // tokens"): it becomes the terminal's token and the old one stops, on every instance
    // (the change notification marks the old hash stale in their replicas).
    await sql`
      update terminals
         set token_hash = next_token_hash, token_issued_at = next_token_issued_at,
             next_token_hash = null, next_token_issued_at = null
       where id = ${row.id} and next_token_hash = ${hash} and revoked_at is null`;
    // This instance at once; the others by the notification.
    cache.invalidate(row.id);
  }
  return terminalOf(row);
}

/**
 * Every live terminal by its token hash (base64): the auth replica's whole read, in
 * batches of `batch` rows (one round trip each, one snapshot: a cursor).
 */
export async function* readTerminals(
  sql: Sql,
  batch: number,
): AsyncGenerator<[string, AuthenticatedTerminal][]> {
  const rows = sql<Row[]>`
    select ${columns(sql)}
      from terminals t
      left join stations s on s.id = t.station_id
     where t.revoked_at is null`.cursor(batch);
  for await (const chunk of rows) {
    yield chunk.map((row): [string, AuthenticatedTerminal] => [
      row.token_hash.toString('base64'),
      terminalOf(row),
    ]);
  }
}

/**
 * Device-token authentication. Every failure (no header, malformed, unknown, revoked,
 * terminal not allowed) throws the same `unauthorized` problem. Heartbeats alone are let
 * through from an `offline` terminal: they are how it comes back. An allowed terminal is
 * answered from the replica of every live terminal (`authCache.ts`, kept exact by the
 * database). Everything else asks the database once before it is refused: a token never
 * seen, one unknown, revoked, disabled or offline alike. So a refusal costs the same work
 * (one lookup by hash) whether the token exists or was used lately, its time tells
 * nothing, and a terminal created a moment ago (its notification still on the way) gets in.
 */
export function authenticateTerminal(
  sql: Sql,
  cache: TerminalAuthCache,
  options: { allowOffline?: boolean } = {},
): Middleware {
  return async (ctx, next) => {
    const terminal = await terminalByToken(sql, cache, bearerToken(ctx), options);
    if (!terminal) throw problem.unauthorized();
    ctx.state.terminal = terminal;
    await next();
  };
}

/**
 * The terminal a device token belongs to, if it may be served: the one path of every
 * terminal request and of the live link's upgrade (hash, cache, database on a miss).
 */
export async function terminalByToken(
  sql: Sql,
  cache: TerminalAuthCache,
  token: string | undefined,
  options: { allowOffline?: boolean } = {},
): Promise<AuthenticatedTerminal | null> {
  const allowed = (terminal: AuthenticatedTerminal | null | undefined) =>
    terminal?.status === 'online' ||
    (options.allowOffline === true && terminal?.status === 'offline');
  if (!token) return null;
  const hash = hashSecret(token);
  const key = hash.toString('base64');
  let terminal = cache.get(key);
  if (!allowed(terminal)) {
    const begunAt = cache.begin();
    terminal = cache.put(key, (await lookUp(sql, hash, cache)) ?? null, begunAt);
  }
  return terminal && allowed(terminal) ? terminal : null;
}

/** The station every terminal request is scoped to; never taken from a body. */
export function stationOf(terminal: AuthenticatedTerminal): TerminalStation {
  if (!terminal.station) throw new ProblemError('internal_error');
  return terminal.station;
}
