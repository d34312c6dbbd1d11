import type { Sql } from '../db/connect';
import { transaction } from '../db/transaction';
import { ProblemError } from '../http/problem';
import { audit, type Actor } from '../operators/audit';
import { authorize } from '../operators/authorize';
import { lockStation } from '../terminal/doorAssignment';
import { doorsOf, stationByCode } from './fleet';

/**
 * Takes a door out of service or back in, with the reason and who, kept on the door (and
 * in its history) and in the audit log. Back in service resolves the door's fault alert
 * (a trigger does, in the same transaction). Shared by the API and `pnpm admin door set`.
 */
export async function setDoorService(
  sql: Sql,
  actor: Actor,
  input: { station: string; position: number; inService: boolean; reason: string },
  cabinetChanged?: (stationId: string) => Promise<void>,
) {
  const action = input.inService ? 'door.service_in' : 'door.service_out';
  const attempt = {
    action,
    targetType: 'door',
    target: `${input.station}/${input.position}`,
    reason: input.reason,
  };
  await authorize(sql, actor, 'doors.service', attempt);
  const station = await stationByCode(sql, actor, input.station, action);
  const reason = input.reason.trim();
  if (reason.length < 3) {
    throw new ProblemError('validation_failed', 'Invalid field(s): reason.', [
      { field: 'reason', code: 'too_small', message: 'must say why (at least 3 characters)' },
    ]);
  }
  const door = await transaction(sql, async (tx) => {
    await lockStation(tx, station.id); // the lock order of every door change
    const changed = await tx`
      update doors set out_of_service = ${!input.inService},
                       out_of_service_reason = ${reason}, out_of_service_by = ${actor.name}
       where station_id = ${station.id} and position = ${input.position}
         and out_of_service = ${input.inService}`;
    const [found] = await doorsOf(tx, station.id, input.position);
    if (!found)
      throw new ProblemError(
        'not_found',
        `Door ${input.position} of station ${station.code} not found.`,
      );
    await audit(tx, actor, {
      ...attempt,
      outcome: 'ok',
      detail: changed.count === 0 ? { unchanged: true } : null,
    });
    return found;
  });
  await cabinetChanged?.(station.id);
  return { station_code: station.code, door };
}
