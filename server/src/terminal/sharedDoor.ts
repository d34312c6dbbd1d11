import {
  DoorParcelsRequestSchema,
  SIZE_UNITS,
  SharedDepositCheckRequestSchema,
  SharedDepositRequestSchema,
  type DoorParcelsResponse,
  type Language,
  type ShareRefusal,
  type SharedDepositCheckResponse,
  type SharedDepositResponse,
  type Size,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { Sql, TransactionSql } from '../db/connect';
import { transaction } from '../db/transaction';
import { readJson } from '../http/body';
import { ProblemError, problem } from '../http/problem';
import { validate } from '../http/validate';
import type { Services } from '../services';
import { queueSms } from '../sms/channel';
import { sharedDoorMessage } from '../sms/sharedDoorTexts';
import { shipmentColumns, type ShipmentView } from '../shipments/view';
import { recordShipmentEvent } from '../webhooks/events';
import { stationOf, type TerminalStation } from './auth';
import { activeCourier, courierNotVerified } from './couriers';
import { lockStation, withinReach } from './doorAssignment';
import { noteClockSkew, reportedTime, type Reporter } from './reportedTime';

// Issue 27, "several parcels, one door, one code" (docs/decisions.md, "Capacity (issue
// 27)"; docs/terminal-extensions.md, "Shared doors"). A parcel for the person whose parcel
// the courier just put in a door may join that door: it takes the door's code (no second
// code is drawn or sent), and keeps its own status, confirm, events and webhooks. The
// door's occupancy row stays its first parcel's (every reader of a door's contents is
// unchanged); the parcels that joined it are rows of `door_shares` (migration 021).

/** A courier's visit: a door joins parcels only within this long of its latest deposit. */
export const VISIT_MINUTES = 30;

/** The parcel the courier scanned, awaiting its deposit here. */
interface Candidate {
  id: string;
  tracking_number: string;
  parcel_size: Size;
  recipient_name: string;
  recipient_phone: string;
  recipient_language: Language;
  sandbox: boolean;
  accessible_door: boolean;
  previous_at: Date | null;
}

/** A door of this visit and what it holds. */
interface DoorNow {
  id: string;
  position: number;
  size: Size | null;
  usable: boolean;
  within_reach: boolean;
  /** Its first parcel, whose code the others share; null when it holds no delivery. */
  lead_id: string | null;
  lead_tracking_number: string | null;
  parcels: {
    size: Size;
    phone: string;
    name: string;
    sandbox: boolean;
    deposited_by: string | null;
    deposited_at: string;
  }[];
}

/** The same person: the same number (E.164, spaces aside) and the same name (case and spacing aside). */
export function samePerson(
  a: { phone: string; name: string },
  b: { phone: string; name: string },
): boolean {
  const phone = (p: string) => p.replace(/[\s\-()]/g, '');
  const name = (n: string) => n.normalize('NFC').trim().replace(/\s+/g, ' ').toLocaleLowerCase();
  return phone(a.phone) === phone(b.phone) && name(a.name) === name(b.name);
}

/**
 * Whether the parcel may join the door, judged on what the door holds now; null: it may.
 * The visit: every parcel in the door was put there by this courier, the latest within
 * VISIT_MINUTES of `at`. The recipient: every parcel's, the same person (and sandbox with
 * sandbox only). The fit: the units of the door's parcels and this one (S=1, M=2, L=4,
 * XL=8) at most the door's own.
 */
export function judgeShare(
  parcel: Candidate,
  door: DoorNow,
  courierId: string,
  at: Date,
): ShareRefusal | null {
  if (!door.lead_id || door.parcels.length === 0) return 'not_this_visit';
  const latest = Math.max(...door.parcels.map((p) => Date.parse(p.deposited_at)));
  if (
    door.parcels.some((p) => p.deposited_by !== courierId) ||
    at.getTime() - latest > VISIT_MINUTES * 60_000
  )
    return 'not_this_visit';
  const person = { phone: parcel.recipient_phone, name: parcel.recipient_name };
  if (door.parcels.some((p) => p.sandbox !== parcel.sandbox || !samePerson(p, person)))
    return 'other_recipient';
  if (!door.usable || !door.size || (parcel.accessible_door && !door.within_reach))
    return 'door_unsuitable';
  const units = door.parcels.reduce((sum, p) => sum + SIZE_UNITS[p.size], 0);
  if (units + SIZE_UNITS[parcel.parcel_size] > SIZE_UNITS[door.size]) return 'does_not_fit';
  return null;
}

async function candidate(
  db: Sql | TransactionSql,
  stationId: string,
  trackingNumber: string,
): Promise<Candidate | undefined> {
  const [row] = await db<Candidate[]>`
    select sh.id, sh.tracking_number, sh.parcel_size, sh.recipient_name, sh.recipient_phone,
           sh.recipient_language, coalesce(o.sandbox, false) as sandbox,
           coalesce(sh.accessible_door, false) as accessible_door,
           (select max(t.occurred_at) from tracking_events t where t.shipment_id = sh.id) as previous_at
      from shipments sh
      left join organizations o on o.id = sh.organization_id
     where sh.tracking_number = ${trackingNumber} and sh.destination_station_id = ${stationId}
       and sh.status = 'booked'`;
  return row;
}

/** The door at `position` and every delivery awaiting pickup in it (its lead and its shares). */
async function doorNow(
  db: Sql | TransactionSql,
  stationId: string,
  position: number,
): Promise<DoorNow | undefined> {
  const [row] = await db<DoorNow[]>`
    select d.id, d.position, d.size, not d.out_of_service as usable,
           coalesce((true ${withinReach(db, 'd')}), false) as within_reach,
           lead.id as lead_id, lead.tracking_number as lead_tracking_number,
           coalesce((
             select json_agg(json_build_object(
                      'size', sh.parcel_size, 'phone', sh.recipient_phone,
                      'name', sh.recipient_name, 'sandbox', coalesce(org.sandbox, false),
                      'deposited_by', sh.deposited_by, 'deposited_at', sh.deposited_at))
               from shipments sh
               left join organizations org on org.id = sh.organization_id
              where sh.status = 'ready_for_pickup'
                and (sh.id = lead.id
                     or sh.id in (select shipment_id from door_shares where door_id = d.id))),
             '[]'::json) as parcels
      from doors d
      left join door_occupancy o on o.door_id = d.id and o.kind = 'delivery'
      left join shipments lead on lead.id = o.shipment_id and lead.status = 'ready_for_pickup'
     where d.station_id = ${stationId} and d.position = ${position}`;
  return row;
}

/** How many parcels await pickup in the door (its lead and those that joined it). */
async function parcelsIn(db: TransactionSql, doorId: string): Promise<number> {
  const [row] = await db<{ n: number }[]>`
    select (select count(*) from door_occupancy where door_id = ${doorId} and kind = 'delivery')::int
         + (select count(*) from door_shares where door_id = ${doorId})::int as n`;
  return row!.n;
}

/** A parcel that may not join the door: 409 `door_not_shareable` with its `reason`. */
export class DoorNotShareableProblem extends ProblemError {
  constructor(readonly reason: ShareRefusal) {
    super('door_not_shareable', `The parcel may not join that door (${reason}).`);
  }

  override body(correlationId: string): Record<string, unknown> {
    return { ...super.body(correlationId), reason: this.reason };
  }
}

export type ShareOutcome =
  | {
      kind: 'joined';
      door: number;
      trackingNumber: string;
      parcelsInDoor: number;
      cabinetVersion: string | null;
    }
  | { kind: 'not_found' }
  | { kind: 'refused'; reason: ShareRefusal };

/**
 * The parcel joins the door, in the caller's transaction, under the station's lock (the
 * lock order: station first, doorAssignment.ts), so a deposit or another join at the same
 * time sees it. A repeat of a join that happened answers it again, changing nothing.
 */
export async function joinDoor(
  tx: TransactionSql,
  station: TerminalStation,
  courierId: string,
  request: { trackingNumber: string; door: number },
  at: Date,
  reporter?: Reporter,
): Promise<ShareOutcome> {
  await lockStation(tx, station.id);
  const door = await doorNow(tx, station.id, request.door);
  const parcel = await candidate(tx, station.id, request.trackingNumber);
  if (!parcel) {
    // A kiosk's retry of a join that went through: the same answer.
    const [done] = await tx<{ tracking_number: string }[]>`
      select sh.tracking_number from shipments sh join door_shares ds on ds.shipment_id = sh.id
       where sh.tracking_number = ${request.trackingNumber} and sh.status = 'ready_for_pickup'
         and sh.deposited_by = ${courierId} and ds.door_id = ${door?.id ?? null}::uuid`;
    if (done && door)
      return {
        kind: 'joined',
        door: door.position,
        trackingNumber: done.tracking_number,
        parcelsInDoor: await parcelsIn(tx, door.id),
        cabinetVersion: null,
      };
    return { kind: 'not_found' };
  }
  if (!door) return { kind: 'refused', reason: 'not_this_visit' };
  const refusal = judgeShare(parcel, door, courierId, at);
  if (refusal) return { kind: 'refused', reason: refusal };
  // The lead's code forms: the same code opens the door and verifies offline. The link
  // of the recipient's page stays the lead's alone (its token hash is unique).
  const [view] = await tx<ShipmentView[]>`
    with joined as (
      update shipments sh
         set status = 'ready_for_pickup', status_at = ${at}, slot_no = ${door.position},
             pickup_code_hash = lead.pickup_code_hash, offline_verifier = lead.offline_verifier,
             joined_door = true, deposited_at = ${at}, deposited_by = ${courierId},
             updated_at = now()
        -- Shared with the verifier worker's lock: a verifier it is making for the lead
        -- is written before this reads it, or this commits before the worker writes
        -- (which then gives the same verifier to the parcels that joined).
        from (select pickup_code_hash, offline_verifier from shipments
               where id = ${door.lead_id} for share) lead
       where sh.id = ${parcel.id} and sh.status = 'booked'
      returning sh.*),
    shared as (
      insert into door_shares (shipment_id, door_id, station_id, since)
      select id, ${door.id}, ${station.id}, ${at} from joined),
    -- Its own reservation, if it had one, is not needed: it is in this door now.
    released as (delete from door_reservations r using joined where r.shipment_id = joined.id)
    select ${shipmentColumns(tx)}
      from joined sh join stations s on s.id = sh.destination_station_id`;
  if (!view) throw new Error('a parcel judged joinable was not recorded');
  if (reporter)
    await noteClockSkew(
      tx,
      reporter.log,
      { shipmentId: parcel.id, at, terminalId: reporter.terminalId, stationId: station.id },
      { previousAt: parcel.previous_at },
    );
  const { cabinetVersion } = await recordShipmentEvent(tx, view, 'shipment.ready_for_pickup', {
    cabinetOf: station.id,
  });
  // No code: the recipient has it from the first parcel's SMS (it never goes out twice).
  await queueSms(
    tx,
    parcel.id,
    sharedDoorMessage({ ...parcel, station_name: station.name }, door.lead_tracking_number ?? ''),
  );
  return {
    kind: 'joined',
    door: door.position,
    trackingNumber: parcel.tracking_number,
    parcelsInDoor: door.parcels.length + 1,
    cabinetVersion,
  };
}

/** `POST /terminal/v1/deposit/shared/check`: may the parcel join the door? Changes nothing. */
export function sharedDepositCheck({ sql }: Services): Middleware {
  return async (ctx) => {
    const request = validate(SharedDepositCheckRequestSchema, await readJson(ctx));
    const station = stationOf(ctx.state.terminal);
    const courier = await activeCourier(sql, request.courierNo);
    if (!courier) throw courierNotVerified();
    const parcel = await candidate(sql, station.id, request.trackingNumber);
    if (!parcel)
      throw problem.notFound(
        'No parcel awaiting deposit has that tracking number at this station.',
      );
    const door = await doorNow(sql, station.id, request.door);
    const refusal = door ? judgeShare(parcel, door, courier.id, new Date()) : 'not_this_visit';
    const body: SharedDepositCheckResponse = refusal
      ? { shareable: false, reason: refusal }
      : { shareable: true, door: door!.position, parcelsInDoor: door!.parcels.length };
    ctx.body = body;
  };
}

/** `POST /terminal/v1/deposit/shared`: the parcel joins the door of this visit. */
export function sharedDeposit(services: Services): Middleware {
  return async (ctx) => {
    const request = validate(SharedDepositRequestSchema, await readJson(ctx));
    const at = reportedTime(request.occurred_at);
    const station = stationOf(ctx.state.terminal);
    const courier = await activeCourier(services.sql, request.courierNo);
    if (!courier) throw courierNotVerified();
    const outcome = await transaction(services.sql, (tx) =>
      joinDoor(tx, station, courier.id, request, at, {
        log: ctx.state.log,
        terminalId: ctx.state.terminal.id,
      }),
    );
    switch (outcome.kind) {
      case 'not_found':
        throw problem.notFound(
          'No parcel awaiting deposit has that tracking number at this station.',
        );
      case 'refused':
        throw new DoorNotShareableProblem(outcome.reason);
      case 'joined': {
        if (outcome.cabinetVersion !== null) {
          await services.cabinetChanged(station.id, outcome.cabinetVersion);
          services.nudge.sms();
          services.nudge.webhooks();
        }
        const body: SharedDepositResponse = {
          ok: true,
          door: outcome.door,
          trackingNumber: outcome.trackingNumber,
          parcelsInDoor: outcome.parcelsInDoor,
        };
        ctx.body = body;
        return;
      }
      default: {
        const unreachable: never = outcome;
        throw new Error(`unhandled share outcome ${JSON.stringify(unreachable)}`);
      }
    }
  };
}

/**
 * `POST /terminal/v1/pickup/door-parcels`: every parcel awaiting pickup in the door of the
 * one a pickup named, that one first. The kiosk opens the door once and confirms each.
 */
export function doorParcels({ sql }: Services): Middleware {
  return async (ctx) => {
    const { shipmentId } = validate(DoorParcelsRequestSchema, await readJson(ctx));
    const station = stationOf(ctx.state.terminal);
    const rows = await sql<{ id: string; tracking_number: string; position: number }[]>`
      with named as (
        select coalesce(o.door_id, ds.door_id) as door_id
          from shipments sh
          left join door_occupancy o on o.shipment_id = sh.id and o.kind = 'delivery'
          left join door_shares ds on ds.shipment_id = sh.id
         where sh.id = ${shipmentId} and sh.destination_station_id = ${station.id}
           and sh.status = 'ready_for_pickup')
      select sh.id, sh.tracking_number, d.position
        from named join doors d on d.id = named.door_id
        join shipments sh on sh.status = 'ready_for_pickup'
         and (sh.id in (select shipment_id from door_occupancy where door_id = d.id and kind = 'delivery')
              or sh.id in (select shipment_id from door_shares where door_id = d.id))
       order by sh.id = ${shipmentId} desc, sh.deposited_at, sh.id`;
    if (rows.length === 0)
      throw problem.notFound('No parcel awaiting collection has that id at this station.');
    const body: DoorParcelsResponse = {
      door: rows[0]!.position,
      parcels: rows.map((r) => ({ shipmentId: r.id, trackingNumber: r.tracking_number })),
    };
    ctx.body = body;
  };
}

/**
 * The CTEs that take the parcels of CTE `left` (collected) out of their doors, in place
 * of deleting their occupancy: one that had joined a door leaves `door_shares`; a door's
 * lead hands the door to the first parcel still in it, and only a door left with none is
 * freed. Used inside a `with` after `left`.
 */
export function leaveDoorQuery(tx: TransactionSql, left: string) {
  return tx`
    share_left as (delete from door_shares where shipment_id in (select id from ${tx(left)})),
    heir as (
      select ds.shipment_id, ds.door_id
        from door_shares ds join door_occupancy o on o.door_id = ds.door_id
       where o.shipment_id in (select id from ${tx(left)})
         and ds.shipment_id not in (select id from ${tx(left)})
       order by ds.since, ds.shipment_id
       limit 1),
    heir_left as (delete from door_shares where shipment_id in (select shipment_id from heir)),
    handed as (
      update door_occupancy o set shipment_id = heir.shipment_id
        from heir where o.door_id = heir.door_id),
    freed as (
      delete from door_occupancy
       where shipment_id in (select id from ${tx(left)}) and not exists (select 1 from heir))`;
}

/**
 * A door's lead left it by another path than a pickup (a courier took it out expired):
 * the first parcel that joined the door, if any, holds it now, so the door is never free
 * while a parcel is recorded in it. Call after deleting the lead's occupancy.
 */
export async function handDoorOn(tx: TransactionSql, doorId: string): Promise<void> {
  await tx`
    with heir as (
      delete from door_shares
       where shipment_id = (
         select ds.shipment_id from door_shares ds
          where ds.door_id = ${doorId}
            and not exists (select 1 from door_occupancy o where o.door_id = ${doorId})
          order by ds.since, ds.shipment_id limit 1)
      returning shipment_id, door_id, station_id, since)
    insert into door_occupancy (door_id, station_id, kind, shipment_id, since)
    select door_id, station_id, 'delivery', shipment_id, since from heir`;
}

/**
 * The door would not open (door/fault) within the undo window: the parcels that joined
 * it in that window never went in either. Each leaves the door and is undone as its lead
 * is; answers their ids, for the caller to undo.
 */
export async function freshSharesOut(
  tx: TransactionSql,
  doorId: string,
  since: Date,
  window: string,
): Promise<string[]> {
  const rows = await tx<{ shipment_id: string }[]>`
    delete from door_shares
     where door_id = ${doorId} and since > ${since}::timestamptz - ${window}::interval
    returning shipment_id`;
  return rows.map((r) => r.shipment_id);
}
