import type { Sql, TransactionSql } from '../db/connect';
import { ProblemError } from '../http/problem';
import { audit, type Actor } from './audit';
import { can, type Permission } from './roles';

/** Whether the actor's role grants `permission`. The CLI (a shell on the host) may do all. */
export function permitted(actor: Actor, permission: Permission): boolean {
  if (actor.role === 'cli' || actor.role === 'system') return true;
  if (actor.role === 'anonymous') return false;
  return can(actor.role, permission);
}

/** Whether the actor may act on the station (technicians: only those assigned to them). */
export function stationInScope(actor: Actor, stationId: string | null): boolean {
  if (actor.stations === null) return true;
  return stationId !== null && actor.stations.includes(stationId);
}

export interface Attempt {
  action: string;
  targetType?: string | null;
  target?: string | null;
  reason?: string | null;
}

/** Refuses with 403 and an audit row of the refusal. */
export async function refuse(
  db: Sql | TransactionSql,
  actor: Actor,
  attempt: Attempt,
  why: string,
): Promise<never> {
  await audit(db, actor, { ...attempt, outcome: 'refused', detail: { why } });
  throw new ProblemError('forbidden', why);
}

/** Throws 403 (audited) unless the actor's role grants `permission`. */
export async function authorize(
  db: Sql | TransactionSql,
  actor: Actor,
  permission: Permission,
  attempt: Attempt,
): Promise<void> {
  if (permitted(actor, permission)) return;
  await refuse(db, actor, attempt, `The ${actor.role} role may not do this (${permission}).`);
}

/** Throws 403 (audited) unless the actor may act on the station. */
export async function authorizeStation(
  db: Sql | TransactionSql,
  actor: Actor,
  stationId: string | null,
  attempt: Attempt,
): Promise<void> {
  if (stationInScope(actor, stationId)) return;
  await refuse(db, actor, attempt, 'This station is not among those assigned to you.');
}
