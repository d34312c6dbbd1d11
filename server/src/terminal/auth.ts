import type { Middleware } from 'koa';
import type { Sql } from '../db/connect';
import { hashSecret, sameHash } from '../domain/secrets';
import { ProblemError, problem } from '../http/problem';

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
  station_id: string | null;
  code: string;
  name: string;
  cabinet_version: string;
  support_phone: string;
  idle_timeout_seconds: number;
  free_storage_hours: number;
}

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,256})$/;

/**
 * Device-token authentication. Every failure (no header, malformed, unknown, revoked,
 * terminal not allowed) throws the same `unauthorized` problem. Heartbeats alone are let
 * through from an `offline` terminal: they are how it comes back.
 */
export function authenticateTerminal(
  sql: Sql,
  options: { allowOffline?: boolean } = {},
): Middleware {
  return async (ctx, next) => {
    const token = BEARER.exec(ctx.get('Authorization'))?.[1];
    if (!token) throw problem.unauthorized();
    const hash = hashSecret(token);
    const [row] = await sql<Row[]>`
      select t.id, t.status, t.token_hash, t.station_id, s.code, s.name, s.cabinet_version,
             s.support_phone, s.idle_timeout_seconds, s.free_storage_hours
        from terminals t
        left join stations s on s.id = t.station_id
       where t.token_hash = ${hash} and t.revoked_at is null`;
    const allowed = row?.status === 'online' || (options.allowOffline && row?.status === 'offline');
    if (!row || !allowed || !sameHash(row.token_hash, hash)) throw problem.unauthorized();
    ctx.state.terminal = {
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
    await next();
  };
}

/** The station every terminal request is scoped to; never taken from a body. */
export function stationOf(terminal: AuthenticatedTerminal): TerminalStation {
  if (!terminal.station) throw new ProblemError('internal_error');
  return terminal.station;
}
