import { randomUUID } from 'node:crypto';
import type { LinkCommandKind } from '@locker/shared';
import type { Sql } from '../db/connect';
import { transaction } from '../db/transaction';
import { ProblemError } from '../http/problem';
import type { Logger } from '../logger';
import { audit, type Actor } from '../operators/audit';
import { authorize } from '../operators/authorize';
import { stationByCode } from '../opsApi/fleet';
import type { LinkCommands, LinkCommandView } from './commands';

/**
 * No mass opening, by design: remote opens per operator and across the whole network in
 * any 60 s. Beyond either, the open waits for a second administrator's approval, and an
 * alert (critical) says a burst was attempted.
 */
export const REMOTE_OPEN_LIMITS = { perOperatorPerMinute: 3, networkPerMinute: 10 };
/** An approval asked for and not given within this long lapses. */
const APPROVAL_TTL_MS = 5 * 60_000;
// Every remote open, on any instance, counts and inserts under this lock.
const REMOTE_OPEN_LOCK = 72_410_023;

export interface LinkDeps {
  sql: Sql;
  commands: LinkCommands;
  logger: Logger;
}

export type RemoteOpenResult =
  | { kind: 'issued'; command: LinkCommandView }
  | { kind: 'approval_required'; approvalId: string; why: string };

function reasonOf(reason: string): string {
  const trimmed = reason.trim();
  if (trimmed.length < 3)
    throw new ProblemError('validation_failed', 'Invalid field(s): reason.', [
      { field: 'reason', code: 'too_small', message: 'must say why (at least 3 characters)' },
    ]);
  return trimmed;
}

/**
 * An operator's remote open of one door: role and station checked (403 and an audit row
 * otherwise), the reason required, the limits judged and the command issued in one
 * transaction under one lock across instances, and an audit row of the request. The
 * caller has checked the second factor (within 5 minutes) already.
 */
export async function requestRemoteOpen(
  d: LinkDeps,
  actor: Actor,
  input: { station: string; position: number; reason: string },
): Promise<RemoteOpenResult> {
  const attempt = {
    action: 'door.remote_open',
    targetType: 'door',
    target: `${input.station}/${input.position}`,
    reason: input.reason,
  };
  await authorize(d.sql, actor, 'doors.open', attempt);
  const station = await stationByCode(d.sql, actor, input.station, 'door.remote_open');
  const reason = reasonOf(input.reason);
  return transaction(d.sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(${REMOTE_OPEN_LOCK})`;
    const [counts] = await tx<{ mine: number; all: number }[]>`
      select count(*) filter (where issued_by = ${actor.name})::int as mine, count(*)::int as all
        from link_commands
       where kind = 'open_door' and issued_at > now() - interval '60 seconds'`;
    const over =
      counts!.mine >= REMOTE_OPEN_LIMITS.perOperatorPerMinute
        ? `${counts!.mine} remote opens by ${actor.name} in the last minute`
        : counts!.all >= REMOTE_OPEN_LIMITS.networkPerMinute
          ? `${counts!.all} remote opens across the network in the last minute`
          : null;
    if (over) {
      const approvalId = randomUUID();
      await tx`
        insert into link_approvals (id, station_id, door, reason, requested_by, requested_role,
                                    expires_at)
        values (${approvalId}, ${station.id}, ${input.position}, ${reason}, ${actor.name},
                ${actor.role}, ${new Date(Date.now() + APPROVAL_TTL_MS)})`;
      // One open alert per burst (repeats fold into it: migration 010).
      await tx`
        insert into alerts (kind, station_id, message)
        values ('remote_open_burst', null,
                ${`remote opens beyond the limit: ${over}; the latest (${station.code} door ${input.position}) waits for a second administrator`})`;
      await audit(tx, actor, {
        ...attempt,
        reason,
        outcome: 'refused',
        detail: { why: over, approval_id: approvalId },
      });
      d.logger.warn(
        { alert: 'remote_open_burst', operator: actor.name, station_code: station.code, why: over },
        'remote opens beyond the limit',
      );
      return { kind: 'approval_required' as const, approvalId, why: over };
    }
    const command = await d.commands.issue(
      {
        stationCode: station.code,
        door: input.position,
        kind: 'open_door',
        args: { by: actor.role === 'technician' ? 'technician' : 'operator' },
        issuedBy: actor.name,
        reason,
      },
      tx,
    );
    await audit(tx, actor, {
      ...attempt,
      reason,
      outcome: 'ok',
      detail: { command_id: command.id },
    });
    return { kind: 'issued' as const, command };
  });
}

/**
 * A second administrator approves a remote open held back by the limits: not the one who
 * asked, within 5 minutes of the asking. The command is issued then (the limits passed
 * by the approval) and both are audited.
 */
export async function approveRemoteOpen(
  d: LinkDeps,
  actor: Actor,
  approvalId: string,
): Promise<LinkCommandView> {
  const attempt = {
    action: 'door.remote_open.approve',
    targetType: 'approval',
    target: approvalId,
  };
  await authorize(d.sql, actor, 'operators.manage', attempt); // administrators only
  if (!/^[0-9a-f-]{36}$/i.test(approvalId))
    throw new ProblemError('not_found', `No approval ${approvalId}.`);
  return transaction(d.sql, async (tx) => {
    const [approval] = await tx<
      {
        station_code: string;
        door: number;
        reason: string;
        requested_by: string;
        requested_role: string;
        expired: boolean;
        approved_at: Date | null;
      }[]
    >`
      select s.code as station_code, a.door, a.reason, a.requested_by, a.requested_role,
             a.expires_at <= now() as expired, a.approved_at
        from link_approvals a join stations s on s.id = a.station_id
       where a.id = ${approvalId}
       for update of a`;
    if (!approval) throw new ProblemError('not_found', `No approval ${approvalId}.`);
    if (approval.requested_by === actor.name) {
      await audit(tx, actor, { ...attempt, outcome: 'refused', detail: { why: 'own request' } });
      throw new ProblemError(
        'forbidden',
        'A second administrator must approve, not the one who asked.',
      );
    }
    if (approval.approved_at || approval.expired)
      throw new ProblemError(
        'conflict',
        approval.approved_at ? 'Already approved.' : 'The approval lapsed: ask again.',
      );
    const command = await d.commands.issue(
      {
        stationCode: approval.station_code,
        door: approval.door,
        kind: 'open_door',
        args: { by: approval.requested_role === 'technician' ? 'technician' : 'operator' },
        issuedBy: approval.requested_by,
        reason: approval.reason,
      },
      tx,
    );
    await tx`
      update link_approvals set approved_by = ${actor.name}, approved_at = now(),
                                command_id = ${command.id}
       where id = ${approvalId}`;
    await audit(tx, actor, {
      ...attempt,
      reason: approval.reason,
      outcome: 'ok',
      detail: { command_id: command.id, requested_by: approval.requested_by },
    });
    return command;
  });
}

/**
 * Any other command to a station's kiosk (refresh the configuration, reload the screen,
 * upload its logs): role and station checked, audited.
 */
export async function requestStationCommand(
  d: LinkDeps,
  actor: Actor,
  input: {
    station: string;
    kind: Exclude<LinkCommandKind, 'open_door' | 'door_service'>;
    args?: Record<string, unknown>;
    reason?: string | null;
  },
): Promise<LinkCommandView> {
  const attempt = {
    action: `link.${input.kind}`,
    targetType: 'station',
    target: input.station,
    reason: input.reason ?? null,
  };
  await authorize(d.sql, actor, 'terminals.manage', attempt);
  const station = await stationByCode(d.sql, actor, input.station, attempt.action);
  return transaction(d.sql, async (tx) => {
    const command = await d.commands.issue(
      {
        stationCode: station.code,
        door: null,
        kind: input.kind,
        args: input.args ?? {},
        issuedBy: actor.name,
        reason: input.reason ?? null,
      },
      tx,
    );
    await audit(tx, actor, { ...attempt, outcome: 'ok', detail: { command_id: command.id } });
    return command;
  });
}

/** A command as the operations API shows it. */
export function presentCommand(c: LinkCommandView) {
  return {
    id: c.id,
    station_code: c.stationCode,
    door: c.door,
    kind: c.kind,
    args: c.args,
    issued_by: c.issuedBy,
    reason: c.reason,
    issued_at: c.issuedAt.toISOString(),
    expires_at: c.expiresAt.toISOString(),
    status: c.status,
    sent_at: c.sentAt?.toISOString() ?? null,
    outcome: c.outcome,
    outcome_detail: c.outcomeDetail,
    outcome_at: c.outcomeAt?.toISOString() ?? null,
  };
}
