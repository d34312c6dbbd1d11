import {
  CourierReturnsRequestSchema,
  ReturnCollectedRequestSchema,
  type CourierReturnsResponse,
  type OkResponse,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { Sql } from '../db/connect';
import { activeCourier } from '../domain/couriers';
import { eventTime } from '../domain/occurredAt';
import type { Services } from '../domain/services';
import { readJson } from '../http/body';
import { ProblemError, problem } from '../http/problem';
import { validate } from '../http/validate';
import { stationOf } from './auth';

async function requireCourier(sql: Sql, number: string): Promise<void> {
  if (!(await activeCourier(sql, number))) {
    throw new ProblemError('courier_not_verified', 'Unknown or deactivated courier.');
  }
}

/** POST /terminal/v1/courier/returns (extension): the returns waiting for a courier here. */
export function courierReturns({ sql }: Services): Middleware {
  return async (ctx) => {
    const { courierNo } = validate(CourierReturnsRequestSchema, await readJson(ctx));
    const station = stationOf(ctx.state.terminal);
    await requireCourier(sql, courierNo);
    const parcels = await sql<{ door: number; trackingNumber: string }[]>`
      select d.position as door, sh.tracking_number as "trackingNumber"
        from door_occupancy o
        join doors d on d.id = o.door_id
        join shipments sh on sh.id = o.shipment_id
       where o.station_id = ${station.id} and o.kind = 'return'
       order by d.position`;
    const body: CourierReturnsResponse = { ok: true, parcels: [...parcels] };
    ctx.body = body;
  };
}

/**
 * POST /terminal/v1/courier/returns/collected (extension): the return left the locker with
 * the merchant's courier. The door is freed and the shipment becomes `return_collected`;
 * a repeat answers 404, so the kiosk may retry safely.
 */
export function returnCollected({ sql, cabinetChanged }: Services): Middleware {
  return async (ctx) => {
    const request = validate(ReturnCollectedRequestSchema, await readJson(ctx));
    const at = eventTime(request.occurred_at);
    const station = stationOf(ctx.state.terminal);
    await requireCourier(sql, request.courierNo);
    const found = await sql.begin(async (tx) => {
      const [held] = await tx<{ return_id: string; shipment_id: string }[]>`
        delete from door_occupancy o
         using shipments sh
         where o.shipment_id = sh.id and o.kind = 'return' and o.station_id = ${station.id}
           and sh.tracking_number = ${request.trackingNumber}
        returning o.return_id, o.shipment_id`;
      if (!held) return false;
      await tx`update returns set status = 'collected', collected_at = ${at} where id = ${held.return_id}`;
      await tx`
        update shipments set status = 'return_collected', status_at = ${at}, updated_at = now()
         where id = ${held.shipment_id}`;
      return true;
    });
    if (!found)
      throw problem.notFound('No deposited return has that tracking number at this station.');
    await cabinetChanged(station.id);
    const body: OkResponse = { ok: true };
    ctx.body = body;
  };
}
