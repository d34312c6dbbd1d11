import {
  DoorConfirmRequestSchema,
  PickupRequestSchema,
  type OkResponse,
  type PickupResponse,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { Services } from '../domain/services';
import { eventTime } from '../domain/occurredAt';
import { pickupCodeHash } from '../domain/secrets';
import { readJson } from '../http/body';
import { ProblemError, problem } from '../http/problem';
import { validate } from '../http/validate';
import { queueWebhookEvent } from '../webhooks/events';
import { stationOf } from './auth';

/**
 * Names the door of the parcel whose code was typed; changes nothing. A wrong code, one
 * of another station and one already collected all find no row here and get the same
 * `invalid_code` answer through the same path.
 */
export function pickup({ sql, config }: Services): Middleware {
  return async (ctx) => {
    const { code } = validate(PickupRequestSchema, await readJson(ctx));
    const station = stationOf(ctx.state.terminal);
    const [found] = await sql<{ id: string; tracking_number: string; position: number }[]>`
      select sh.id, sh.tracking_number, d.position
        from shipments sh
        join door_occupancy o on o.shipment_id = sh.id and o.kind = 'delivery'
        join doors d on d.id = o.door_id
       where sh.destination_station_id = ${station.id}
         and sh.status = 'ready_for_pickup'
         and sh.pickup_code_hash = ${pickupCodeHash(config.pickupCodeSecret, code)}`;
    if (!found) throw new ProblemError('invalid_code');
    const body: PickupResponse = {
      ok: true,
      door: found.position,
      trackingNumber: found.tracking_number,
      shipmentId: found.id,
    };
    ctx.body = body;
  };
}

/**
 * Records the outcome of a pickup. `collected: true` frees the door and judges the
 * free-storage window on the collection time; `false` changes nothing. A second confirm
 * finds no parcel awaiting collection and answers 404, so retries are safe.
 */
export function doorConfirm({ sql, cabinetChanged, nudge }: Services): Middleware {
  return async (ctx) => {
    const request = validate(DoorConfirmRequestSchema, await readJson(ctx));
    const at = eventTime(request.occurred_at);
    const station = stationOf(ctx.state.terminal);
    // `collected: false` changes nothing: one read. `true`: the update takes the row lock
    // and checks the status in the same statement, and frees the door with it.
    const found = request.collected
      ? await sql.begin(async (tx) => {
          const [collected] = await tx<{ id: string }[]>`
            with collected as (
              update shipments
                 set status = 'collected', status_at = ${at}, collected_at = ${at},
                     collected_late = ${at} > deposited_at + make_interval(hours => ${station.freeStorageHours}),
                     pickup_code_hash = null, updated_at = now()
               where id = ${request.shipmentId}
                 and destination_station_id = ${station.id}
                 and status = 'ready_for_pickup'
              returning id),
            freed as (
              delete from door_occupancy where shipment_id in (select id from collected))
            select id from collected`;
          if (!collected) return false;
          await queueWebhookEvent(tx, collected.id, 'shipment.collected');
          return true;
        })
      : (
          await sql`
            select 1 from shipments
             where id = ${request.shipmentId}
               and destination_station_id = ${station.id}
               and status = 'ready_for_pickup'`
        ).length > 0;
    if (!found)
      throw problem.notFound('No parcel awaiting collection has that id at this station.');
    if (request.collected) {
      await cabinetChanged(station.id);
      nudge.webhooks();
    }
    const body: OkResponse = { ok: true };
    ctx.body = body;
  };
}
