import {
  DoorConfirmRequestSchema,
  PickupRequestSchema,
  type OkResponse,
  type PickupResponse,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { TransactionSql } from '../db/connect';
import type { Services } from '../services';
import { reportedTime, noteClockSkewAfter, type Reporter } from './reportedTime';
import { pickupCodeHash } from '../domain/secrets';
import { readJson } from '../http/body';
import { ProblemError, problem } from '../http/problem';
import { validate } from '../http/validate';
import { shipmentEventCtes } from '../webhooks/events';
import { shipmentColumns, shipmentsWithStations, type ShipmentView } from '../shipments/view';
import { retried, type WriteDb } from '../db/transaction';
import { stationOf } from './auth';
import { lockedWrite } from './doorAssignment';
import { attemptQuery, judgementOf, type JudgedRow } from '../ratelimit/slidingWindow';
import { countAttempt, refuseOverLimit, windowOf } from './rateLimit';
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
      await countAttempt(sql, ctx, 'pickup', window);
      throw error;
    }
    // So does one of a terminal with no station (a 500).
    if (!ctx.state.terminal.station) await countAttempt(sql, ctx, 'pickup', window);
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
    // Run again whole (a fresh read) when it lost a race (`retried`).
    const found = await retried(() =>
      pickupOutcome({ sql }, station, request.shipmentId, request.collected, at, {
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
      // The merchant's event and the recipient's receipt are queued.
      nudge.webhooks();
      nudge.sms();
    }
    const body: OkResponse = { ok: true };
    ctx.body = body;
  };
}

/** The parcel awaiting collection as the confirm's read finds it (without a lock). */
interface Awaiting extends ShipmentView {
  /** The shipment row's version (its xmin): the collection writes only the row read here. */
  row_version: string;
  previous_at: Date | null;
}

/**
 * The collection, one statement under the station's lock (the lock order: station first,
 * doorAssignment.ts): the parcel collected and its door freed (or handed on to a parcel
 * sharing it), the merchant's event with the recipient's receipt. Judged on the effective
 * times the history shows (migration 013's effective_event_time: a time reported before
 * the parcel's previous event counts as the time of receipt); free storage runs from the
 * deposit, never from before the booking. Nothing of it when the parcel or its station
 * changed since the read (the event shows what the read found). Sent as it is called.
 */
function collectStatement(
  tx: TransactionSql,
  station: { id: string; freeStorageHours: number },
  parcel: Awaiting,
  at: Date,
) {
  // The receipt names the station: its name is checked with its code and serial.
  const asCollected: ShipmentView = { ...parcel, status: 'collected' };
  return tx<{ written: boolean }[]>`
    with collected as (
      update shipments sh
         set status = 'collected', status_at = ${at}, collected_at = ${at},
             collected_late = effective_event_time(${at}, sh.status_at)
               > greatest(sh.deposited_at, sh.created_at)
                 + make_interval(hours => ${station.freeStorageHours} + sh.storage_extended_hours),
             pickup_code_hash = null, updated_at = now()
        from stations s
       where sh.id = ${parcel.id} and sh.destination_station_id = ${station.id}
         and sh.status = 'ready_for_pickup' and s.id = sh.destination_station_id
         -- As the read found them, so the event built from that read is true.
         and sh.xmin = ${parcel.row_version}::xid
         and s.code = ${parcel.station_code} and s.cabinet_sn = ${parcel.cabinet_sn}
         and s.name = ${parcel.station_name}
         -- Only under the station's lock, in its transaction (underStationLock's setting).
         and current_setting('locker.cabinet_announce', true) = 'after_commit'
      returning sh.id, sh.organization_id, sh.slot_no, sh.updated_at),
    ${leaveDoorQuery(tx, 'collected')},
    ${shipmentEventCtes(tx, asCollected, 'shipment.collected', 'collected')}
    select exists (select 1 from collected) as written`.execute();
}

/**
 * The outcome of a pickup; false when no parcel awaiting collection has that id at the
 * station. `collected: false` changes nothing: one read. `true`: the read, then the
 * collection (`collectStatement`), which checks what the read found; when that changed
 * (a confirm sent twice at once, a parcel written meanwhile) the confirm reads again.
 * Answers the cabinet version the commit makes (null when nothing changed, or in the
 * caller's transaction: read after its commit by `cabinetChanged`).
 */
async function pickupOutcome(
  /** A kiosk's confirm: the read, then the collection's transaction in one write. */
  db: WriteDb,
  station: { id: string; freeStorageHours: number },
  shipmentId: string,
  collected: boolean,
  at: Date,
  /** The terminal that reported it; none for the sandbox, whose clock is the server's. */
  reporter?: Reporter,
): Promise<{ cabinetVersion: string | null } | false> {
  const reader = 'tx' in db ? db.tx : db.sql;
  if (!collected) {
    const [awaiting] = await reader`
      select 1 from shipments
       where id = ${shipmentId} and destination_station_id = ${station.id}
         and status = 'ready_for_pickup'`;
    return awaiting ? { cabinetVersion: null } : false;
  }
  for (let reads = 1; ; reads++) {
    const [parcel] = await reader<Awaiting[]>`
      select ${shipmentColumns(reader)}, sh.xmin::text as row_version,
             (select max(t.occurred_at) from tracking_events t where t.shipment_id = sh.id) as previous_at
        from ${shipmentsWithStations(reader)}
       where sh.id = ${shipmentId} and sh.destination_station_id = ${station.id}
         and sh.status = 'ready_for_pickup'`;
    if (!parcel) return false;
    const [[write], cabinetVersion] = await lockedWrite(db, station.id, (tx) =>
      collectStatement(tx, station, parcel, at),
    );
    if (!write?.written) {
      if (reads < 5) continue;
      throw new Error('a collection found its parcel changed since its read, five times');
    }
    await noteClockSkewAfter(
      db,
      reporter,
      { shipmentId, at, stationId: station.id },
      parcel.previous_at,
    );
    return { cabinetVersion };
  }
}

/**
 * The outcome of a pickup in the caller's transaction (`pickupOutcome`); shared with the
 * sandbox.
 */
export function recordPickupOutcome(
  tx: TransactionSql,
  station: { id: string; freeStorageHours: number },
  shipmentId: string,
  collected: boolean,
  at: Date,
  reporter?: Reporter,
): Promise<{ cabinetVersion: string | null } | false> {
  return pickupOutcome({ tx }, station, shipmentId, collected, at, reporter);
}
