import {
  DoorConfirmRequestSchema,
  PickupRequestSchema,
  type OkResponse,
  type PickupResponse,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { TransactionSql } from '../db/connect';
import type { Services } from '../services';
import { reportedTime, noteClockSkew, type Reporter } from './reportedTime';
import { pickupCodeHash } from '../domain/secrets';
import { readJson } from '../http/body';
import { ProblemError, problem } from '../http/problem';
import { validate } from '../http/validate';
import { recordShipmentEvent } from '../webhooks/events';
import { shipmentColumns, type ShipmentView } from '../shipments/view';
import { transaction } from '../db/transaction';
import { stationOf } from './auth';
import { underStationLock } from './doorAssignment';
import {
  attemptQuery,
  judgementOf,
  recordAttempt,
  type JudgedRow,
} from '../ratelimit/slidingWindow';
import { refuseOverLimit, windowOf } from './rateLimit';
import { PICKUP_LIMIT } from './limits';
import { noteConfirmConflict } from './offline';
import { leaveDoorQuery } from './sharedDoor';

/**
 * Names the door of the parcel whose code was typed; changes nothing. A wrong code, one
 * of another station and one already collected all find no row here and get the same
 * `invalid_code` answer through the same path. The rate limit's attempt is recorded and
 * judged in the same statement (one round trip); a refused attempt finds nothing.
 */
export function pickup({ sql, config }: Services): Middleware {
  const window = windowOf(PICKUP_LIMIT);
  return async (ctx) => {
    let code: string;
    try {
      ({ code } = validate(PickupRequestSchema, await readJson(ctx)));
    } catch (error) {
      // A malformed attempt counts too, and past the limit is refused as such.
      const judged = await recordAttempt(sql, ctx.state.terminal.id, 'pickup', window, undefined, {
        soft: true,
      });
      await refuseOverLimit(sql, ctx, 'pickup', judged);
      throw error;
    }
    const station = stationOf(ctx.state.terminal);
    const [row] = await sql<
      (JudgedRow & { id: string | null; tracking_number: string; position: number })[]
    >`
      with ${attemptQuery(sql, ctx.state.terminal.id, 'pickup', window, undefined, { soft: true })},
      found as (
        select sh.id, sh.tracking_number, d.position
          from shipments sh
          join door_occupancy o on o.shipment_id = sh.id and o.kind = 'delivery'
          join doors d on d.id = o.door_id
         where sh.destination_station_id = ${station.id}
           and sh.status = 'ready_for_pickup'
           and sh.pickup_code_hash = ${pickupCodeHash(config.pickupCodeSecret, code)}
           and (select in_window from judged) <= ${window.limit})
      select judged.*, found.* from judged left join found on true`;
    if (!row) throw new Error('rate limit upsert returned no row');
    await refuseOverLimit(sql, ctx, 'pickup', judgementOf(row, window));
    if (!row.id) throw new ProblemError('invalid_code');
    const body: PickupResponse = {
      ok: true,
      door: row.position,
      trackingNumber: row.tracking_number,
      shipmentId: row.id,
    };
    ctx.body = body;
  };
}

/**
 * Records the outcome of a pickup. `collected: true` frees the door and judges the
 * free-storage window on the collection time; `false` changes nothing. A second confirm
 * finds no parcel awaiting collection and answers 404, so retries are safe.
 */
export function doorConfirm(services: Services): Middleware {
  const { sql, cabinetChanged, nudge } = services;
  return async (ctx) => {
    const request = validate(DoorConfirmRequestSchema, await readJson(ctx));
    const at = reportedTime(request.occurred_at);
    const station = stationOf(ctx.state.terminal);
    const found = await transaction(sql, (tx) =>
      recordPickupOutcome(tx, station, request.shipmentId, request.collected, at, {
        log: ctx.state.log,
        terminalId: ctx.state.terminal.id,
      }),
    );
    if (!found) {
      // A collection the kiosk made while the service had the parcel otherwise: alerted.
      if (request.collected)
        await noteConfirmConflict(
          services,
          { id: ctx.state.terminal.id, stationId: station.id, stationCode: station.code },
          request.shipmentId,
          at,
        );
      throw problem.notFound('No parcel awaiting collection has that id at this station.');
    }
    if (request.collected) {
      await cabinetChanged(station.id, found.cabinetVersion, { announce: true });
      nudge.webhooks();
    }
    const body: OkResponse = { ok: true };
    ctx.body = body;
  };
}

/**
 * The outcome of a pickup in the caller's transaction; false when no parcel awaiting
 * collection has that id at the station. Shared with the sandbox. `collected: false`
 * changes nothing: one read. `true`: begin with the station lock (the lock order: station
 * first, doorAssignment.ts) and one statement that collects the parcel and frees its
 * door, the merchant's event with the recipient's receipt, commit. Answers the cabinet version
 * the commit makes (null when nothing changed).
 */
export async function recordPickupOutcome(
  tx: TransactionSql,
  station: { id: string; freeStorageHours: number },
  shipmentId: string,
  collected: boolean,
  at: Date,
  /** The terminal that reported it; none for the sandbox, whose clock is the server's. */
  reporter?: Reporter,
): Promise<{ cabinetVersion: string | null } | false> {
  if (!collected) {
    const [awaiting] = await tx`
      select 1 from shipments
       where id = ${shipmentId} and destination_station_id = ${station.id}
         and status = 'ready_for_pickup'`;
    return awaiting ? { cabinetVersion: null } : false;
  }
  // Judged on the effective times the history shows (migration 013's
  // effective_event_time: a time reported before the parcel's previous event counts as the
  // time of receipt); free storage runs from the deposit, never from before the booking.
  const [row] = await underStationLock(
    tx,
    station.id,
    () => tx<(ShipmentView & { previous_at: Date | null })[]>`
    with previous as (
      select max(occurred_at) as at from tracking_events where shipment_id = ${shipmentId}),
    collected as (
      update shipments sh
         set status = 'collected', status_at = ${at}, collected_at = ${at},
             collected_late = effective_event_time(${at}, sh.status_at)
               > greatest(sh.deposited_at, sh.created_at)
                 + make_interval(hours => ${station.freeStorageHours} + sh.storage_extended_hours),
             pickup_code_hash = null, updated_at = now()
        from stations s
       where sh.id = ${shipmentId} and sh.destination_station_id = ${station.id}
         and sh.status = 'ready_for_pickup' and s.id = sh.destination_station_id
      returning ${shipmentColumns(tx)}),
    ${leaveDoorQuery(tx, 'collected')}
    select collected.*, (select at from previous) as previous_at from collected`,
  );
  if (!row) return false;
  const { previous_at: previousAt, ...view } = row;
  if (reporter)
    await noteClockSkew(
      tx,
      reporter.log,
      { shipmentId, at, terminalId: reporter.terminalId, stationId: station.id },
      { previousAt },
    );
  return recordShipmentEvent(tx, view, 'shipment.collected', { cabinetOf: station.id });
}
