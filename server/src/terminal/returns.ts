import {
  ReturnConfirmRequestSchema,
  ReturnRequestSchema,
  type OkResponse,
  type ReturnResponse,
  type Size,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { Sql, TransactionSql } from '../db/connect';
import { reportedTime, noteClockSkewAfter, type Reporter } from './reportedTime';
import type { Services } from '../services';
import { readJson } from '../http/body';
import { problem } from '../http/problem';
import { retried, type WriteDb } from '../db/transaction';
import { CabinetFullProblem } from './cabinetFull';
import { validate } from '../http/validate';
import { shipmentEventCtes } from '../webhooks/events';
import { shipmentColumns, type ShipmentView } from '../shipments/view';
import { stationOf } from './auth';
import { RETURN_LIMIT } from './limits';
import { countAttempt, refuseOverLimit, windowOf } from './rateLimit';
import { attemptQuery, judgementOf, type JudgedRow } from '../ratelimit/slidingWindow';
import { lockedWrite, smallestFreeDoorQuery } from './doorAssignment';

/**
 * The parcel as the return's read finds it (without a lock): the shipment as the
 * merchant's event shows it, its row's version, whether its return window is open, and
 * its return and held door when a return was started before. The write that follows
 * checks it again under the station's lock.
 */
interface ReturnCandidate extends ShipmentView {
  /** The shipment row's version (its xmin): a new return writes only the row read here. */
  row_version: string;
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
      /** The cabinet version the commit makes; null when this call held no door or read none. */
      cabinetVersion: string | null;
    }
  | { kind: 'not_found' }
  | { kind: 'cabinet_full'; size: Size };

/** The read of `ReturnCandidate`: one row or none, for a CTE or a statement of its own. */
function candidateQuery(db: Sql | TransactionSql, stationId: string, trackingNumber: string) {
  return db`
    select ${shipmentColumns(db)}, sh.xmin::text as row_version,
           sh.collected_at > now() - make_interval(days => org.return_window_days) as within_window,
           r.id as return_id, r.status as return_status, d.position as held_position
      from shipments sh
      join stations s on s.id = sh.destination_station_id
      join organizations org on org.id = sh.organization_id
      left join returns r on r.shipment_id = sh.id
      left join door_occupancy o on o.return_id = r.id and o.kind = 'return_hold'
      left join doors d on d.id = o.door_id
     where sh.tracking_number = ${trackingNumber} and sh.destination_station_id = ${stationId}`;
}

/** What a return's write did: nothing when what the read found had changed. */
interface ReturnWrite {
  written: boolean;
  return_id: string | null;
  /** The door held; null: none is free that the parcel fits. */
  door: number | null;
}

/**
 * The CTEs `door` (the smallest free door the parcel fits) and `held` (that door held for
 * the return of each row of the CTE `holder`, its id in the column `id`).
 */
function doorHeld(
  tx: TransactionSql,
  stationId: string,
  parcel: { id: string; parcel_size: Size },
  holder: string,
) {
  return tx`
    door as (${smallestFreeDoorQuery(tx, stationId, parcel.parcel_size)}),
    held as (
      insert into door_occupancy (door_id, station_id, kind, shipment_id, return_id)
      select door.id, ${stationId}, 'return_hold', ${parcel.id}, holder.id
        from door, ${tx(holder)} holder)`;
}

/**
 * `and` the statement runs under the station's lock, in its transaction: set by
 * underStationLock's statement, so a statement sent after its COMMIT by mistake
 * (`inOneWrite`) writes nothing.
 */
const underTheLock = (tx: TransactionSql) =>
  tx`and current_setting('locker.cabinet_announce', true) = 'after_commit'`;

/**
 * A return started before, open, holding no door (its door released, or none was free):
 * a door held for it, if it still holds none. Sent as it is called.
 */
function resumeStatement(
  tx: TransactionSql,
  stationId: string,
  parcel: ReturnCandidate,
  returnId: string,
) {
  return tx<ReturnWrite[]>`
    with open as (
      select r.id from returns r
       where r.id = ${returnId} and r.station_id = ${stationId} and r.status = 'open'
         and not exists (select 1 from door_occupancy o where o.shipment_id = ${parcel.id})
         ${underTheLock(tx)}),
    ${doorHeld(tx, stationId, parcel, 'open')}
    select exists (select 1 from open) as written, ${returnId}::uuid as return_id,
           (select position from door) as door`.execute();
}

/**
 * A new return, in one statement (issue 28, as a deposit's): the return, the shipment's
 * `return_started` with the merchant's event, and the door found and held; without a free
 * door the return is started all the same, for the retry. Nothing of it when the shipment
 * or its station changed since the read (the event shows what the read found). Sent as
 * it is called.
 */
function startStatement(tx: TransactionSql, stationId: string, parcel: ReturnCandidate) {
  const asStarted: ShipmentView = { ...parcel, status: 'return_started' };
  return tx<ReturnWrite[]>`
    with changed as (
      update shipments sh set status = 'return_started', status_at = now(), updated_at = now()
        from stations s
       where sh.id = ${parcel.id} and sh.status = 'collected'
         and sh.destination_station_id = ${stationId} and s.id = sh.destination_station_id
         -- As the read found them, so the event built from that read is true.
         and sh.xmin = ${parcel.row_version}::xid
         and s.code = ${parcel.station_code} and s.cabinet_sn = ${parcel.cabinet_sn}
         ${underTheLock(tx)}
      returning sh.id, sh.organization_id, sh.slot_no, sh.updated_at),
    created as (
      insert into returns (shipment_id, station_id) select id, ${stationId} from changed
      returning id),
    ${shipmentEventCtes(tx, asStarted, 'return.started', 'changed')},
    ${doorHeld(tx, stationId, parcel, 'created')}
    select exists (select 1 from changed) as written, (select id from created) as return_id,
           (select position from door) as door`.execute();
}

async function readCandidate(
  db: Sql | TransactionSql,
  stationId: string,
  trackingNumber: string,
): Promise<ReturnCandidate | undefined> {
  const [row] = await db<ReturnCandidate[]>`${candidateQuery(db, stationId, trackingNumber)}`;
  return row;
}

/**
 * Starts or resumes a return and holds a door. `first`: the read already made (the
 * route's, beside its rate limit; undefined when it found no parcel).
 */
async function startOrResume(
  /** A kiosk's return: the read, then the write's transaction in one write. */
  db: WriteDb,
  stationId: string,
  trackingNumber: string,
  first?: { candidate: ReturnCandidate | undefined },
): Promise<ReturnOutcome> {
  const reader = 'tx' in db ? db.tx : db.sql;
  for (let reads = 1; ; reads++) {
    const candidate =
      reads === 1 && first
        ? first.candidate
        : await readCandidate(reader, stationId, trackingNumber);
    if (!candidate) return { kind: 'not_found' };
    const { return_id: returnId, return_status: returnStatus } = candidate;
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
    } else if (candidate.status !== 'collected' || !candidate.within_window)
      return { kind: 'not_found' };
    const statement = (tx: TransactionSql) =>
      returnId
        ? resumeStatement(tx, stationId, candidate, returnId)
        : startStatement(tx, stationId, candidate);
    // The lock order: station first (doorAssignment.ts); the statement sent with the lock.
    const [[write], cabinetVersion] = await lockedWrite(db, stationId, statement);
    if (!write?.written) {
      // Changed since the read (a retry of this very return, a shipment written): read again.
      if (reads < 5) continue;
      throw new Error('a return found its parcel changed since its read, five times');
    }
    // The return stays open without a door, so a retry resumes it with the same returnId.
    if (write.door === null) return { kind: 'cabinet_full', size: candidate.parcel_size };
    return {
      kind: 'held',
      door: write.door,
      returnId: write.return_id!,
      ...parcel,
      cabinetVersion,
    };
  }
}

/** Starts or resumes a return and holds a door, in the caller's transaction (the sandbox). */
export function startReturn(
  tx: TransactionSql,
  stationId: string,
  trackingNumber: string,
): Promise<ReturnOutcome> {
  return startOrResume({ tx }, stationId, trackingNumber);
}

/**
 * Assigns and holds a door for a customer's return; records nothing of the return itself.
 * One open return per parcel: retries (after `cabinet_full` too) resume it. In two round
 * trips (issue 28): the read with the rate limit's attempt (recorded and judged in the
 * same statement, as a pickup's; a refused attempt finds nothing), then the write.
 */
export function startReturnRoute({ sql, cabinetChanged, nudge }: Services): Middleware {
  const window = windowOf(RETURN_LIMIT);
  return async (ctx) => {
    const terminalId = ctx.state.terminal.id;
    // An attempt that reads nothing (malformed, or from a terminal with no station: a 500)
    // counts too, and past the limit is refused as such.
    let trackingNumber: string;
    try {
      ({ trackingNumber } = validate(ReturnRequestSchema, await readJson(ctx)));
    } catch (error) {
      await countAttempt(sql, ctx, 'return', window);
      throw error;
    }
    if (!ctx.state.terminal.station) await countAttempt(sql, ctx, 'return', window);
    const station = stationOf(ctx.state.terminal);
    const [row] = await sql<(JudgedRow & Partial<ReturnCandidate>)[]>`
      with ${attemptQuery(sql, terminalId, 'return', window, undefined, { soft: true })},
      found as (${candidateQuery(sql, station.id, trackingNumber)}
                 and (select in_window from judged) <= ${window.limit})
      select judged.*, found.* from judged left join found on true`;
    if (!row) throw new Error('rate limit upsert returned no row');
    await refuseOverLimit(sql, ctx, 'return', judgementOf(row, window));
    const candidate = row.id ? (row as ReturnCandidate) : undefined;
    // Run again whole (a fresh read) when it lost a race (`retried`).
    let first: { candidate: ReturnCandidate | undefined } | undefined = { candidate };
    const outcome = await retried(() => {
      const read = first;
      first = undefined;
      return startOrResume({ sql }, station.id, trackingNumber, read);
    });
    // A return started (even without a free door) queued the merchant's `return.started`.
    if (outcome.kind !== 'not_found') nudge.webhooks();
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
    // Run again whole (a fresh read) when it lost a race (`retried`).
    const found = await retried(() =>
      returnOutcome({ sql }, station.id, request.returnId, request.deposited, at, {
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

/** A return awaiting deposit, its door held, as the confirm's read finds it (no lock). */
interface AwaitingDeposit extends ShipmentView {
  /** The shipment row's version (its xmin): the deposit writes only the row read here. */
  row_version: string;
  previous_at: Date | null;
}

/**
 * The return's deposit, one statement under the station's lock (the lock order: station
 * first, doorAssignment.ts): the return deposited, its held door now holding a `return`
 * parcel for the merchant's courier, the shipment `returned_to_locker` with the
 * merchant's event. Nothing of it when the return no longer awaits deposit with its door
 * held, or its shipment or station changed since the read (the event shows what the read
 * found). Sent as it is called.
 */
function depositStatement(
  tx: TransactionSql,
  stationId: string,
  returnId: string,
  parcel: AwaitingDeposit,
  at: Date,
) {
  const asReturned: ShipmentView = { ...parcel, status: 'returned_to_locker' };
  return tx<{ written: boolean }[]>`
    with returned as (
      update shipments sh set status = 'returned_to_locker', status_at = ${at}, updated_at = now()
        from stations s
       where sh.id = ${parcel.id} and s.id = sh.destination_station_id
         -- As the read found them, so the event built from that read is true.
         and sh.xmin = ${parcel.row_version}::xid
         and s.code = ${parcel.station_code} and s.cabinet_sn = ${parcel.cabinet_sn}
         and exists (
           select 1 from returns r
             join door_occupancy o on o.return_id = r.id and o.kind = 'return_hold'
            where r.id = ${returnId} and r.station_id = ${stationId} and r.status = 'open'
              and r.shipment_id = sh.id)
         ${underTheLock(tx)}
      returning sh.id, sh.organization_id, sh.slot_no, sh.updated_at),
    return_deposited as (
      update returns set status = 'deposited', deposited_at = ${at}
       where id = ${returnId} and exists (select 1 from returned)),
    stored as (
      update door_occupancy set kind = 'return', since = ${at}
       where return_id = ${returnId} and kind = 'return_hold'
         and exists (select 1 from returned)),
    ${shipmentEventCtes(tx, asReturned, 'return.deposited', 'returned')}
    select exists (select 1 from returned) as written`.execute();
}

/** The held door released: the return stays open for a retry. Sent as it is called. */
function releaseStatement(tx: TransactionSql, stationId: string, returnId: string) {
  return tx<{ door_id: string }[]>`
    delete from door_occupancy o using returns r
     where o.return_id = r.id and o.kind = 'return_hold'
       and r.id = ${returnId} and r.station_id = ${stationId} and r.status = 'open'
       ${underTheLock(tx)}
    returning o.door_id`.execute();
}

/**
 * The outcome of a return; false when no return awaiting deposit has that id at the
 * station. `deposited: false` releases the door: one statement. `true`: the read of the
 * return and its parcel, then `depositStatement`, which checks what the read found; when
 * that changed (a confirm sent twice at once, a shipment written meanwhile) the confirm
 * reads again. Answers the cabinet version the commit makes (null in the caller's
 * transaction: read after its commit by `cabinetChanged`).
 */
async function returnOutcome(
  /** A kiosk's return: the read, then the write's transaction in one write. */
  db: WriteDb,
  stationId: string,
  returnId: string,
  deposited: boolean,
  at: Date,
  /** The terminal that reported it; none for the sandbox, whose clock is the server's. */
  reporter?: Reporter,
): Promise<{ cabinetVersion: string | null } | false> {
  if (!deposited) {
    const [released, cabinetVersion] = await lockedWrite(db, stationId, (tx) =>
      releaseStatement(tx, stationId, returnId),
    );
    return released.length > 0 ? { cabinetVersion } : false;
  }
  const reader = 'tx' in db ? db.tx : db.sql;
  for (let reads = 1; ; reads++) {
    const [parcel] = await reader<AwaitingDeposit[]>`
      select ${shipmentColumns(reader)}, sh.xmin::text as row_version,
             (select max(t.occurred_at) from tracking_events t where t.shipment_id = sh.id) as previous_at
        from returns r
        join door_occupancy o on o.return_id = r.id and o.kind = 'return_hold'
        join shipments sh on sh.id = r.shipment_id
        join stations s on s.id = sh.destination_station_id
       where r.id = ${returnId} and r.station_id = ${stationId} and r.status = 'open'`;
    if (!parcel) return false;
    const [[write], cabinetVersion] = await lockedWrite(db, stationId, (tx) =>
      depositStatement(tx, stationId, returnId, parcel, at),
    );
    if (!write?.written) {
      if (reads < 5) continue;
      throw new Error('a return deposit found its return changed since its read, five times');
    }
    await noteClockSkewAfter(
      db,
      reporter,
      { shipmentId: parcel.id, at, stationId },
      parcel.previous_at,
    );
    // The spec's "merchant notified": the event is recorded with the deposit.
    return { cabinetVersion };
  }
}

/** The outcome of a return in the caller's transaction (`returnOutcome`); shared with the sandbox. */
export function recordReturnOutcome(
  tx: TransactionSql,
  stationId: string,
  returnId: string,
  deposited: boolean,
  at: Date,
  reporter?: Reporter,
): Promise<{ cabinetVersion: string | null } | false> {
  return returnOutcome({ tx }, stationId, returnId, deposited, at, reporter);
}
