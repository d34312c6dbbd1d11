import { DoorFaultRequestSchema, type OkResponse } from '@locker/shared';
import type { Middleware } from 'koa';
import type { TransactionSql } from '../db/connect';
import type { Services } from '../domain/services';
import { readJson } from '../http/body';
import { problem } from '../http/problem';
import { validate } from '../http/validate';
import { stationOf } from './auth';
import { lockStation } from './doorAssignment';

// A deposit the courier could not complete because the door would not open is undone
// only while it is this fresh; an older parcel is physically inside and stays recorded.
const UNDO_DEPOSIT_WITHIN = '10 minutes';

async function takeOutOfService(
  tx: TransactionSql,
  stationId: string,
  position: number,
): Promise<boolean> {
  await lockStation(tx, stationId);
  const [door] = await tx<{ id: string }[]>`
    update doors set out_of_service = true
     where station_id = ${stationId} and position = ${position}
    returning id`;
  if (!door) return false;
  const [fresh] = await tx<{ shipment_id: string }[]>`
    delete from door_occupancy o
     where o.door_id = ${door.id}
       and (o.kind = 'return_hold' or (o.kind = 'delivery' and o.since > now() - ${UNDO_DEPOSIT_WITHIN}::interval))
    returning o.shipment_id, o.kind`;
  if (!fresh) return true;
  // A delivery goes back to awaiting deposit: its code dies with it, and an SMS not yet
  // sent is cancelled (the retried deposit sends a new one). A held return just loses
  // its door and stays open.
  await tx`
    update shipments
       set status = 'booked', status_at = now(), slot_no = null, pickup_code_hash = null,
           deposited_at = null, deposited_by = null, updated_at = now()
     where id = ${fresh.shipment_id} and status = 'ready_for_pickup'`;
  await tx`
    update outbox set failed_at = now(), last_error = 'cancelled: the door would not open'
     where shipment_id = ${fresh.shipment_id} and channel = 'sms' and delivered_at is null and failed_at is null`;
  return true;
}

/**
 * POST /terminal/v1/door/fault: the kiosk unlocked a door and never saw it open. The door
 * is taken out of service so no parcel is assigned to it again, and an operator alert is
 * raised.
 */
export function doorFault({ sql, cabinetChanged, logger }: Services): Middleware {
  return async (ctx) => {
    const { position } = validate(DoorFaultRequestSchema, await readJson(ctx));
    const station = stationOf(ctx.state.terminal);
    const found = await sql.begin(async (tx) => {
      const done = await takeOutOfService(tx, station.id, position);
      if (done) {
        await tx`
          insert into alerts (kind, terminal_id, station_id, message)
          values ('door_fault', ${ctx.state.terminal.id}, ${station.id}, ${`door ${position} did not open; taken out of service`})`;
      }
      return done;
    });
    if (!found) throw problem.notFound('No door has that position at this station.');
    logger.warn(
      { alert: 'door_fault', station_code: station.code, position },
      'door taken out of service',
    );
    await cabinetChanged(station.id);
    const body: OkResponse = { ok: true };
    ctx.body = body;
  };
}
