import { createHash, randomBytes } from 'node:crypto';
import type { OperatorRole } from '@locker/shared';
import type { Sql, TransactionSql } from '../db/connect';

export type SessionStage = 'password' | 'complete';

/** A session's limits: idle and absolute, from the settings. */
export interface SessionLimits {
  idleMs: number;
  absoluteMs: number;
}

/** A session that only waits for its second factor lives this long at most. */
export const PENDING_MS = 10 * 60_000;

export interface LiveSession {
  id: string;
  operator_id: string;
  stage: SessionStage;
  created_at: Date;
  last_seen_at: Date;
  second_factor_at: Date | null;
  email: string;
  role: OperatorRole;
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_last_step: string | null;
  stations: string[];
}

export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

export function sessionTokenHash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export async function createSession(
  db: Sql | TransactionSql,
  operatorId: string,
  stage: SessionStage,
  now: Date,
  client: { address: string | null; userAgent: string | null },
  secondFactorAt: Date | null = null,
): Promise<{ token: string; id: string }> {
  const token = newSessionToken();
  const [row] = await db<{ id: string }[]>`
    insert into operator_sessions (token_hash, operator_id, stage, created_at, last_seen_at,
                                   second_factor_at, address, user_agent)
    values (${sessionTokenHash(token)}, ${operatorId}, ${stage}, ${now}, ${now}, ${secondFactorAt},
            ${client.address}, ${client.userAgent?.slice(0, 300) ?? null})
    returning id`;
  return { token, id: row!.id };
}

/** Why a session token is not (or no longer) good, for the 401's detail. */
export type SessionRefusal = 'none' | 'ended' | 'idle' | 'absolute';

/**
 * The live session of `token` at `now`. A session idle longer than the idle limit, or
 * older than the absolute one (a pending one: 10 minutes), is ended here and refused.
 * `touch` records this request as activity (the alert stream's periodic check does not).
 */
export async function findSession(
  sql: Sql,
  token: string,
  now: Date,
  limits: SessionLimits,
  touch = true,
): Promise<LiveSession | SessionRefusal> {
  const [session] = await sql<
    (LiveSession & { ended_at: Date | null; deactivated_at: Date | null })[]
  >`
    select s.id, s.operator_id, s.stage, s.created_at, s.last_seen_at, s.second_factor_at,
           s.ended_at, o.email, o.role, o.totp_secret, o.totp_pending_secret,
           o.totp_last_step::text as totp_last_step, o.deactivated_at,
           array(select station_id::text from operator_stations x where x.operator_id = o.id) as stations
      from operator_sessions s join operators o on o.id = s.operator_id
     where s.token_hash = ${sessionTokenHash(token)}`;
  if (!session) return 'none';
  if (session.ended_at || session.deactivated_at) return 'ended';
  const absolute = session.stage === 'complete' ? limits.absoluteMs : PENDING_MS;
  const why: SessionRefusal | undefined =
    now.getTime() - session.created_at.getTime() >= absolute
      ? 'absolute'
      : now.getTime() - session.last_seen_at.getTime() >= limits.idleMs
        ? 'idle'
        : undefined;
  if (why) {
    await sql`update operator_sessions set ended_at = ${now} where id = ${session.id} and ended_at is null`;
    return why;
  }
  if (touch) {
    await sql`update operator_sessions set last_seen_at = greatest(last_seen_at, ${now}) where id = ${session.id}`;
  }
  return session;
}

export async function endSession(
  db: Sql | TransactionSql,
  sessionId: string,
  now: Date,
): Promise<void> {
  await db`update operator_sessions set ended_at = ${now} where id = ${sessionId} and ended_at is null`;
}

/** Ends every session of the operator (logout everywhere, deactivation, reset). */
export async function endAllSessions(
  db: Sql | TransactionSql,
  operatorId: string,
  now: Date,
): Promise<number> {
  const ended = await db`
    update operator_sessions set ended_at = ${now}
     where operator_id = ${operatorId} and ended_at is null`;
  return ended.count;
}
