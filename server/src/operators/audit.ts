import { userInfo } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { OperatorRole } from '@locker/shared';
import type { Sql, TransactionSql } from '../db/connect';

/** Who did something: an operator, the CLI (as the OS user), or someone not signed in. */
export interface Actor {
  id: string | null;
  /** The operator's e-mail, `cli:<os user>`, or what was typed at a failed sign-in. */
  name: string;
  role: OperatorRole | 'cli' | 'anonymous' | 'system';
  /** Technicians: the stations they may act on; null: every station. */
  stations: string[] | null;
  correlationId: string;
  address: string | null;
}

/** The CLI's actor: the OS user who ran `pnpm admin`. */
export function cliActor(env: NodeJS.ProcessEnv = process.env): Actor {
  let user = env.SUDO_USER || env.USER || env.LOGNAME || '';
  try {
    user ||= userInfo().username;
  } catch {
    user ||= 'unknown';
  }
  return {
    id: null,
    name: `cli:${user}`,
    role: 'cli',
    stations: null,
    correlationId: randomUUID(),
    address: null,
  };
}

export type Outcome = 'ok' | 'refused' | 'failed';

export interface AuditEntry {
  action: string;
  targetType?: string | null;
  target?: string | null;
  reason?: string | null;
  outcome: Outcome;
  /** Anything else worth keeping; never a secret or a pickup code. */
  detail?: Record<string, unknown> | null;
}

/** Appends one row to the audit log, in the caller's transaction when given one. */
export async function audit(
  db: Sql | TransactionSql,
  actor: Actor,
  entry: AuditEntry,
): Promise<void> {
  await db`
    insert into audit_log (actor_id, actor, role, action, target_type, target, reason, outcome,
                           detail, correlation_id, address)
    values (${actor.id}, ${actor.name}, ${actor.role}, ${entry.action}, ${entry.targetType ?? null},
            ${entry.target ?? null}, ${entry.reason ?? null}, ${entry.outcome},
            ${entry.detail ? db.json(entry.detail as never) : null}, ${actor.correlationId},
            ${actor.address})`;
}
