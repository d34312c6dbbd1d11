import {
  CourierReturnsRequestSchema,
  ReturnCollectedRequestSchema,
  type CourierReturnsResponse,
  type OkResponse,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { Sql, TransactionSql } from '../db/connect';
import { activeCourier, courierNotVerified } from './couriers';
import { reportedTime, noteClockSkew, type Reporter } from './reportedTime';
import type { Services } from '../services';
import { readJson } from '../http/body';
import { problem } from '../http/problem';
import { validate } from '../http/validate';
import { queueWebhookEvent } from '../webhooks/events';
import { transaction } from '../db/transaction';
import { stationOf } from './auth';
import { lockStation } from './doorAssignment';
import { handDoorOn } from './sharedDoor';

/**
 * Which occupied doors a courier may empty, as of `at`: deposited returns, and deliveries
 * left past the station's maximum storage time (expired; they go back to the merchant).
 */
function takeable(sql: Sql | TransactionSql, at: Date) {
  return sql`(o.kind = 'return' or (o.kind = 'delivery'
               and sh.deposited_at <= ${at}::timestamptz - make_interval(hours => s.max_storage_hours + sh.storage_extended_hours)))`;
}

/** POST /terminal/v1/courier/returns (extension): the parcels waiting for a courier here. */
export function courierReturns({ sql }: Services): Middleware {
  return async (ctx) => {
    const { courierNo } = validate(CourierReturnsRequestSchema, await readJson(ctx));
    const station = stationOf(ctx.state.terminal);
    if (!(await activeCourier(sql, courierNo))) throw courierNotVerified();
    const parcels = await sql<CourierReturnsResponse['parcels']>`
      select d.position as door, sh.tracking_number as "trackingNumber",
             case o.kind when 'return' then 'return' else 'expired' end as kind
        from door_occupancy o
        join doors d on d.id = o.door_id
        join shipments sh on sh.id = o.shipment_id
        join stations s on s.id = o.station_id
       where o.station_id = ${station.id} and ${takeable(sql, new Date())}
       order by d.position`;
    const body: CourierReturnsResponse = { ok: true, parcels: [...parcels] };
    ctx.body = body;
  };
}

/**
 * POST /terminal/v1/courier/returns/collected (extension): a parcel left the locker with
 * the merchant's courier, on its way back. The door is freed and the shipment becomes
 * `return_collected` (an expired delivery's pickup code dies with it); the merchant is
 * notified. A repeat answers 404, so the kiosk may retry safely.
 */
export function returnCollected({ sql, cabinetChanged }: Services): Middleware {
  return async (ctx) => {
    const request = validate(ReturnCollectedRequestSchema, await readJson(ctx));
    const at = reportedTime(request.occurred_at);
    const station = stationOf(ctx.state.terminal);
    if (!(await activeCourier(sql, request.courierNo))) throw courierNotVerified();
    const found = await transaction(sql, (tx) =>
      takeOutForCourier(tx, station.id, request.trackingNumber, at, {
        log: ctx.state.log,
        terminalId: ctx.state.terminal.id,
      }),
    );
    if (!found)
      throw problem.notFound(
        'No deposited return or expired parcel has that tracking number at this station.',
      );
    await cabinetChanged(station.id);
    const body: OkResponse = { ok: true };
    ctx.body = body;
  };
}

/**
 * A deposited return or an expired delivery leaves with the merchant's courier, in the
 * caller's transaction; false when none has that tracking number at the station. Shared
 * with the sandbox.
 */
export async function takeOutForCourier(
  tx: TransactionSql,
  stationId: string,
  trackingNumber: string,
  at: Date,
  /** The terminal that reported it; none for the sandbox, whose clock is the server's. */
  reporter?: Reporter,
): Promise<boolean> {
  await lockStation(tx, stationId); // the lock order: station first (doorAssignment.ts)
  const [taken] = await tx<{ return_id: string | null; shipment_id: string; door_id: string }[]>`
    delete from door_occupancy o
     using shipments sh, stations s
     where o.shipment_id = sh.id and s.id = o.station_id and o.station_id = ${stationId}
       and sh.tracking_number = ${trackingNumber} and ${takeable(tx, at)}
    returning o.return_id, o.shipment_id, o.door_id`;
  if (!taken) return false;
  // An expired parcel that others joined (issue 27): the next of them holds the door.
  await handDoorOn(tx, taken.door_id);
  if (reporter)
    await noteClockSkew(tx, reporter.log, {
      shipmentId: taken.shipment_id,
      at,
      terminalId: reporter.terminalId,
      stationId,
    });
  if (taken.return_id) {
    await tx`update returns set status = 'collected', collected_at = ${at} where id = ${taken.return_id}`;
  }
  await tx`
    update shipments
       set status = 'return_collected', status_at = ${at}, pickup_code_hash = null,
           updated_at = now()
     where id = ${taken.shipment_id}`;
  await queueWebhookEvent(tx, taken.shipment_id, 'shipment.return_collected');
  return true;
}
