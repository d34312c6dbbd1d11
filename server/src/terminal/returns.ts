import {
  ReturnConfirmRequestSchema,
  ReturnRequestSchema,
  type OkResponse,
  type ReturnResponse,
  type Size,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { PendingQuery, Row } from 'postgres';
import type { TransactionSql } from '../db/connect';
import { reportedTime, noteClockSkew, type Reporter } from './reportedTime';
import type { Services } from '../services';
import { readJson } from '../http/body';
import { problem } from '../http/problem';
import { transaction } from '../db/transaction';
import { CabinetFullProblem } from './cabinetFull';
import { validate } from '../http/validate';
import { recordShipmentEvent, shipmentEventCtes } from '../webhooks/events';
import { shipmentColumns, type ShipmentView } from '../shipments/view';
import { stationOf } from './auth';
import { smallestFreeDoorQuery, underStationLock, withCabinetVersion } from './doorAssignment';

/**
 * The parcel as the return finds it under the station's lock: the shipment as the
 * merchant's event shows it, whether its return window is open, and its return and held
 * door when a return was started before.
 */
interface ReturnCandidate extends ShipmentView {
  within_window: boolean;
  return_id: string | null;
  return_status: string | null;
  held_position: number | null;
}

export type ReturnOutcome =
  | {
      kind: 'held';
      door: number;
      trackingNumber: string;
      returnId: string;
      /** The cabinet version the commit makes; null when this call held no door. */
      cabinetVersion: string | null;
    }
  | { kind: 'not_found' }
  | { kind: 'cabinet_full'; size: Size };

/**
 * The CTEs `door` (the smallest free door the parcel fits) and `held` (that door held for
 * the return `returnId`, an expression: a return started by the same statement has no id
 * yet).
 */
function doorHeld(
  tx: TransactionSql,
  stationId: string,
  parcel: { id: string; parcel_size: Size },
  returnId: PendingQuery<Row[]>,
) {
  return tx`
    door as (${smallestFreeDoorQuery(tx, stationId, parcel.parcel_size)}),
    held as (
      insert into door_occupancy (door_id, station_id, kind, shipment_id, return_id)
      select door.id, ${stationId}, 'return_hold', ${parcel.id}, ${returnId} from door)`;
}

/** Starts or resumes a return and holds a door; shared with the sandbox. */
export async function startReturn(
  tx: TransactionSql,
  stationId: string,
  trackingNumber: string,
): Promise<ReturnOutcome> {
  // The lock order: station first (doorAssignment.ts); the read sent with the lock, run
  // once it is granted (one round trip less with the station held).
  const [candidate] = await underStationLock(
    tx,
    stationId,
    () => tx<ReturnCandidate[]>`
    select ${shipmentColumns(tx)},
           sh.collected_at > now() - make_interval(days => org.return_window_days) as within_window,
           r.id as return_id, r.status as return_status, d.position as held_position
      from shipments sh
      join stations s on s.id = sh.destination_station_id
      join organizations org on org.id = sh.organization_id
      left join returns r on r.shipment_id = sh.id
      left join door_occupancy o on o.return_id = r.id and o.kind = 'return_hold'
      left join doors d on d.id = o.door_id
     where sh.tracking_number = ${trackingNumber} and sh.destination_station_id = ${stationId}`,
  );
  if (!candidate) return { kind: 'not_found' };
  const {
    within_window: withinWindow,
    return_id: returnId,
    return_status: returnStatus,
  } = candidate;
  const parcel = { trackingNumber: candidate.tracking_number };
  if (returnId) {
    // A return started before: resumed while open, with its door if it holds one.
    if (returnStatus !== 'open') return { kind: 'not_found' };
    if (candidate.held_position !== null)
      return {
        kind: 'held',
        door: candidate.held_position,
        returnId,
        ...parcel,
        cabinetVersion: null,
      };
    const [[door], cabinetVersion] = await withCabinetVersion(
      tx,
      stationId,
      tx<{ position: number }[]>`
        with ${doorHeld(tx, stationId, candidate, tx`${returnId}::uuid`)}
        select position from door`.execute(),
    );
    // The return stays open without a door, so a retry resumes it with the same returnId.
    if (!door) return { kind: 'cabinet_full', size: candidate.parcel_size };
    return { kind: 'held', door: door.position, returnId, ...parcel, cabinetVersion };
  }
  if (candidate.status !== 'collected' || !withinWindow) return { kind: 'not_found' };
  // A new return (issue 28: one statement with the station held, as a deposit's): the
  // return, the shipment's `return_started` with the merchant's event, and the door found
  // and held; without a free door the return is started all the same, for the retry.
  const asStarted: ShipmentView = { ...candidate, status: 'return_started' };
  const [[started], cabinetVersion] = await withCabinetVersion(
    tx,
    stationId,
    tx<{ return_id: string; door: number | null }[]>`
    with created as (
      insert into returns (shipment_id, station_id) values (${candidate.id}, ${stationId})
      returning id),
    changed as (
      update shipments sh set status = 'return_started', status_at = now(), updated_at = now()
       where sh.id = ${candidate.id}
      returning sh.id, sh.organization_id, sh.slot_no, sh.updated_at),
    ${shipmentEventCtes(tx, asStarted, 'return.started', 'changed')},
    ${doorHeld(tx, stationId, candidate, tx`(select id from created)`)}
    select created.id as return_id, (select position from door) as door from created`.execute(),
  );
  if (!started) throw new Error('a return was not started with the station held');
  if (started.door === null) return { kind: 'cabinet_full', size: candidate.parcel_size };
  return {
    kind: 'held',
    door: started.door,
    returnId: started.return_id,
    ...parcel,
    cabinetVersion,
  };
}

/**
 * Assigns and holds a door for a customer's return; records nothing of the return itself.
 * One open return per parcel: retries (after `cabinet_full` too) resume it.
 */
export function startReturnRoute({ sql, cabinetChanged }: Services): Middleware {
  return async (ctx) => {
    const { trackingNumber } = validate(ReturnRequestSchema, await readJson(ctx));
    const station = stationOf(ctx.state.terminal);
    const outcome = await transaction(sql, (tx) => startReturn(tx, station.id, trackingNumber));
    switch (outcome.kind) {
      case 'not_found':
        throw problem.notFound(
          'No parcel eligible for return has that tracking number at this station.',
        );
      case 'cabinet_full':
        throw new CabinetFullProblem(outcome.size);
      case 'held': {
        // Announced on a resume too (the version read again, the door held before): a retry
        // after a commit whose announcement was lost (a reply cut) puts the door on the grids.
        await cabinetChanged(station.id, outcome.cabinetVersion, { announce: true });
        const body: ReturnResponse = {
          ok: true,
          door: outcome.door,
          trackingNumber: outcome.trackingNumber,
          returnId: outcome.returnId,
        };
        ctx.body = body;
        return;
      }
      default: {
        const unreachable: never = outcome;
        throw new Error(`unhandled return outcome ${JSON.stringify(unreachable)}`);
      }
    }
  };
}

/**
 * `deposited: true` records the return: the held door now holds a `return` parcel for the
 * merchant's courier. `false` releases the door and leaves the return open for a retry.
 */
export function confirmReturnRoute({ sql, cabinetChanged, nudge }: Services): Middleware {
  return async (ctx) => {
    const request = validate(ReturnConfirmRequestSchema, await readJson(ctx));
    const at = reportedTime(request.occurred_at);
    const station = stationOf(ctx.state.terminal);
    const found = await transaction(sql, (tx) =>
      recordReturnOutcome(tx, station.id, request.returnId, request.deposited, at, {
        log: ctx.state.log,
        terminalId: ctx.state.terminal.id,
      }),
    );
    if (!found) throw problem.notFound('No return awaiting deposit has that id at this station.');
    await cabinetChanged(station.id, found.cabinetVersion, { announce: true });
    if (request.deposited) nudge.webhooks();
    const body: OkResponse = { ok: true };
    ctx.body = body;
  };
}

/**
 * The outcome of a return in the caller's transaction; false when no return awaiting
 * deposit has that id at the station. Shared with the sandbox. Begin, the station lock
 * (the lock order: station first, doorAssignment.ts), one statement that records the
 * return, its door and the shipment's status, the merchant's event, commit. Answers the
 * cabinet version the commit makes, when it read it.
 */
export async function recordReturnOutcome(
  tx: TransactionSql,
  stationId: string,
  returnId: string,
  deposited: boolean,
  at: Date,
  /** The terminal that reported it; none for the sandbox, whose clock is the server's. */
  reporter?: Reporter,
): Promise<{ cabinetVersion: string | null } | false> {
  // The lock order: station first (doorAssignment.ts); the statement sent with the lock.
  if (!deposited) {
    const released = await underStationLock(
      tx,
      stationId,
      () => tx`
      delete from door_occupancy o using returns r
       where o.return_id = r.id and o.kind = 'return_hold'
         and r.id = ${returnId} and r.station_id = ${stationId} and r.status = 'open'
      returning o.door_id`,
    );
    return released.length > 0 ? { cabinetVersion: null } : false;
  }
  const [row] = await underStationLock(
    tx,
    stationId,
    () => tx<(ShipmentView & { previous_at: Date | null })[]>`
    with held as (
      select r.id, r.shipment_id, o.door_id
        from returns r
        join door_occupancy o on o.return_id = r.id and o.kind = 'return_hold'
       where r.id = ${returnId} and r.station_id = ${stationId} and r.status = 'open'
         for update of r),
    previous as (
      select max(occurred_at) as at from tracking_events
       where shipment_id = (select shipment_id from held)),
    recorded as (
      update returns set status = 'deposited', deposited_at = ${at}
       where id = (select id from held)),
    stored as (
      update door_occupancy set kind = 'return', since = ${at}
       where door_id = (select door_id from held)),
    returned as (
      update shipments sh set status = 'returned_to_locker', status_at = ${at}, updated_at = now()
        from stations s
       where sh.id = (select shipment_id from held) and s.id = sh.destination_station_id
      returning ${shipmentColumns(tx)})
    select returned.*, (select at from previous) as previous_at from returned`,
  );
  if (!row) return false;
  const { previous_at: previousAt, ...view } = row;
  if (reporter)
    await noteClockSkew(
      tx,
      reporter.log,
      { shipmentId: view.id, at, terminalId: reporter.terminalId, stationId },
      { previousAt },
    );
  // The spec's "merchant notified".
  return recordShipmentEvent(tx, view, 'return.deposited', { cabinetOf: stationId });
}
