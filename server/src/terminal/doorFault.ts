import { DoorFaultRequestSchema, type DoorFaultRequest, type OkResponse } from '@locker/shared';
import type { Middleware } from 'koa';
import type { TransactionSql } from '../db/connect';
import { undoDeposit } from './depositUndo';
import { reportedTime } from './reportedTime';
import type { Services } from '../services';
import { readJson } from '../http/body';
import { problem } from '../http/problem';
import { validate } from '../http/validate';
import { transaction } from '../db/transaction';
import { stationOf } from './auth';
import { lockStation } from './doorAssignment';
import { freshSharesOut, handDoorOn } from './sharedDoor';

// A deposit the courier could not complete because the door would not open is undone
// only while it is this fresh; an older parcel is physically inside and stays recorded.
const UNDO_DEPOSIT_WITHIN = '10 minutes';

type DoorProblem = NonNullable<DoorFaultRequest['problem']>;
const SAID: Record<DoorProblem, string> = {
  did_not_open: 'did not open',
  will_not_close: 'will not close',
};

async function takeOutOfService(
  tx: TransactionSql,
  stationId: string,
  position: number,
  at: Date,
  problem: DoorProblem,
): Promise<boolean> {
  await lockStation(tx, stationId); // the lock order: station first (doorAssignment.ts)
  // Why and by whom, for operations (kept while it stays out of service; an operator's
  // earlier reason is not overwritten).
  const reason = `door ${SAID[problem]} (reported by the kiosk)`;
  const [door] = await tx<{ id: string }[]>`
    update doors set out_of_service = true,
                     out_of_service_reason = case when out_of_service then out_of_service_reason else ${reason} end,
                     out_of_service_by = case when out_of_service then out_of_service_by else 'terminal' end
     where station_id = ${stationId} and position = ${position}
    returning id`;
  if (!door) return false;
  // A door that will not close opened: what was put in is inside, and stays recorded.
  if (problem === 'will_not_close') return true;
  const [fresh] = await tx<{ shipment_id: string; kind: string }[]>`
    delete from door_occupancy o
     where o.door_id = ${door.id}
       and (o.kind = 'return_hold' or (o.kind = 'delivery' and o.since > ${at}::timestamptz - ${UNDO_DEPOSIT_WITHIN}::interval))
    returning o.shipment_id, o.kind`;
  // A delivery goes back to awaiting deposit (the courier's retry gets another door); a
  // held return just loses its door and stays open.
  if (fresh?.kind === 'delivery') {
    await undoDeposit(tx, fresh.shipment_id, { at, reason: 'the door would not open' });
  }
  // Parcels that joined the door in that window (issue 27) never went in either; an
  // older lead stays, and so does anything that joined it earlier.
  for (const joined of await freshSharesOut(tx, door.id, at, UNDO_DEPOSIT_WITHIN))
    await undoDeposit(tx, joined, { at, reason: 'the door would not open' });
  await handDoorOn(tx, door.id);
  return true;
}

/**
 * POST /terminal/v1/door/fault: the kiosk unlocked a door and never saw it open, or a person
 * reports that it will not close. The door is taken out of service so no parcel is
 * assigned to it again, and an operator alert says which.
 */
export function doorFault({ sql, cabinetChanged, logger }: Services): Middleware {
  return async (ctx) => {
    const request = validate(DoorFaultRequestSchema, await readJson(ctx));
    const { position, problem: reported = 'did_not_open' } = request;
    // A fault queued while offline counts from when the door failed, not when it arrived.
    const at = reportedTime(request.occurred_at);
    const station = stationOf(ctx.state.terminal);
    const found = await transaction(sql, async (tx) => {
      const done = await takeOutOfService(tx, station.id, position, at, reported);
      if (done) {
        await tx`
          insert into alerts (kind, terminal_id, station_id, door_id, message)
          values ('door_fault', ${ctx.state.terminal.id}, ${station.id},
                  (select id from doors where station_id = ${station.id} and position = ${position}),
                  ${`door ${position} ${SAID[reported]}; taken out of service`})`;
      }
      return done;
    });
    if (!found) throw problem.notFound('No door has that position at this station.');
    logger.warn(
      { alert: 'door_fault', station_code: station.code, position, problem: reported },
      'door taken out of service',
    );
    await cabinetChanged(station.id);
    const body: OkResponse = { ok: true };
    ctx.body = body;
  };
}
