import {
  DepositAlternativesRequestSchema,
  DepositRerouteRequestSchema,
  type DepositAlternativesResponse,
  type DepositRerouteResponse,
  type Language,
  type OverflowStation,
  type Size,
  type StationWithRoom,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { Sql, TransactionSql } from '../db/connect';
import { transaction } from '../db/transaction';
import { readJson } from '../http/body';
import { problem } from '../http/problem';
import { validate } from '../http/validate';
import type { Services } from '../services';
import { shipmentColumns, type ShipmentView } from '../shipments/view';
import { queueSms } from '../sms/channel';
import { reroutedMessage } from '../sms/messages';
import { stationOf, type TerminalStation } from '../terminal/auth';
import { courierNotVerified } from '../terminal/couriers';
import { smallestFreeDoorQuery } from '../terminal/doorAssignment';
import { recordShipmentEvent } from '../webhooks/events';
import { nearestStations } from './finder';
import { StationFullProblem } from './stationFull';

/** How many stations the kiosk offers: a courier in a hurry reads three, not ten. */
const ALTERNATIVES = 3;

/**
 * How far a courier is sent, at most: a station farther than this is another round's
 * work, not a detour (the finder's own query has no radius; its nearest-first order
 * makes the cut a filter of its page).
 */
export const OVERFLOW_RADIUS_M = 10_000;

/** The parcel a courier holds at a full station, as the overflow reads it. */
interface Parcel {
  id: string;
  organization_id: string;
  tracking_number: string;
  parcel_size: Size;
  accessible_door: boolean;
  recipient_name: string;
  recipient_phone: string;
  recipient_language: Language;
  sandbox: boolean;
}

interface Place {
  id: string;
  code: string;
  name: string;
  address: string | null;
  latitude: number | null;
  longitude: number | null;
}

/**
 * The courier (active or not) and the parcel awaiting deposit at `stationId` with that
 * tracking number, with this station's place, in one round trip.
 */
async function courierAndParcel(
  db: Sql | TransactionSql,
  stationId: string,
  courierNo: string,
  trackingNumber: string,
) {
  const [row] = await db<
    (Partial<Parcel> & { courier_id: string | null; here: Place & { id: string } })[]
  >`
    select c.id as courier_id, sh.id, sh.organization_id, sh.tracking_number, sh.parcel_size,
           sh.accessible_door, sh.recipient_name, sh.recipient_phone, sh.recipient_language,
           coalesce(o.sandbox, false) as sandbox,
           json_build_object('id', st.id, 'code', st.code, 'name', st.name,
                             'address', st.address, 'latitude', st.latitude,
                             'longitude', st.longitude) as here
      from stations st
      left join couriers c on c.number = ${courierNo} and c.active
      left join shipments sh on sh.tracking_number = ${trackingNumber}
                            and sh.destination_station_id = st.id and sh.status = 'booked'
      left join organizations o on o.id = sh.organization_id
     where st.id = ${stationId}`;
  if (!row) throw new Error('the terminal station vanished');
  const parcel = row.id ? (row as Parcel) : undefined;
  return { courierId: row.courier_id, parcel, here: row.here };
}

/**
 * The parcel's organization's nearest stations to `here`, other than it, with a door free
 * now that the parcel fits, within `OVERFLOW_RADIUS_M`: the locker finder's own KNN query
 * (finder.ts), not a second.
 */
async function stationsWithRoom(
  db: Sql | TransactionSql,
  here: Place,
  parcel: Parcel,
): Promise<StationWithRoom[]> {
  if (here.latitude === null || here.longitude === null) return [];
  const found = await nearestStations(
    db,
    { latitude: here.latitude, longitude: here.longitude },
    {
      organizationId: parcel.organization_id,
      asOf: new Date(),
      size: parcel.parcel_size,
      accessible: parcel.accessible_door,
      limit: ALTERNATIVES,
      except: here.id,
    },
  );
  return found
    .filter((f) => f.distance_m <= OVERFLOW_RADIUS_M)
    .map((f) => ({
      id: f.id,
      code: f.code,
      name: f.name,
      address: f.address,
      distance_m: f.distance_m,
      free_doors: f.free_doors,
      accessible_free_doors: f.accessible_free_doors,
    }));
}

const overflowStation = ({
  code,
  name,
  address,
  distance_m,
}: OverflowStation): OverflowStation => ({
  code,
  name,
  address,
  distance_m,
});

/**
 * POST /terminal/v1/deposit/alternatives {courierNo, trackingNumber}: where a parcel this
 * full station cannot take could go. Read only; the same refusals as the deposit.
 */
export function depositAlternatives({ sql }: Services): Middleware {
  return async (ctx) => {
    const request = validate(DepositAlternativesRequestSchema, await readJson(ctx));
    const station = stationOf(ctx.state.terminal);
    const { courierId, parcel, here } = await courierAndParcel(
      sql,
      station.id,
      request.courierNo,
      request.trackingNumber,
    );
    if (!courierId) throw courierNotVerified();
    if (!parcel) throw notAwaitingHere();
    const body: DepositAlternativesResponse = {
      trackingNumber: parcel.tracking_number,
      parcel_size: parcel.parcel_size,
      stations: (await stationsWithRoom(sql, here, parcel)).map(overflowStation),
    };
    ctx.body = body;
  };
}

const notAwaitingHere = () =>
  problem.notFound('No parcel awaiting deposit has that tracking number at this station.');

type RerouteOutcome =
  | { kind: 'rerouted' | 'replayed'; body: DepositRerouteResponse }
  | { kind: 'courier_not_verified' }
  | { kind: 'no_station' }
  | { kind: 'not_found' };

interface Target extends Place {
  distance_m: number;
}

/**
 * The station the courier chose, as the parcel's organization may see it (a sandbox its
 * own, others the live ones) and within `OVERFLOW_RADIUS_M`, with its distance from here. Not locked: found by code to
 * learn the id the locks are taken by.
 */
async function targetStation(
  tx: TransactionSql,
  here: TerminalStation,
  stationCode: string,
  trackingNumber: string,
): Promise<Target | undefined> {
  const [target] = await tx<(Place & { distance_m: number | null })[]>`
    select s.id, s.code, s.name, s.address, s.latitude, s.longitude,
           round(earth_distance(ll_to_earth(s.latitude, s.longitude),
                                ll_to_earth(h.latitude, h.longitude)))::int as distance_m
      from stations s, stations h, shipments sh, organizations o
     where s.code = ${stationCode} and h.id = ${here.id} and s.id <> h.id
       and sh.tracking_number = ${trackingNumber} and o.id = sh.organization_id
       and s.sandbox_organization_id is not distinct from (case when o.sandbox then o.id end)`;
  // Only a station the kiosk could have offered: near enough, both places known.
  if (!target || target.distance_m === null || target.distance_m > OVERFLOW_RADIUS_M) {
    return undefined;
  }
  return { ...target, distance_m: target.distance_m };
}

/**
 * Both stations' locks (`lock_station`, exclusive), in id order: the lock order
 * (terminal/doorAssignment.ts) for a path that changes two stations, so a reroute A→B and
 * one B→A never wait on each other in a circle, and a deposit at either station waits for
 * this reroute or it for it.
 */
async function lockStations(tx: TransactionSql, ids: string[]): Promise<void> {
  for (const id of [...ids].sort()) await tx`select lock_station(${id})`;
}

/**
 * The reroute, in the caller's transaction. After the locks, the parcel is read again:
 * a deposit or cancel that won the lock leaves it no longer booked here (404). A parcel
 * already booked to the target by a reroute from here is this request's retry: answered
 * as it was, nothing recorded or sent again.
 */
async function rerouteParcel(
  tx: TransactionSql,
  here: TerminalStation,
  request: { courierNo: string; trackingNumber: string; stationCode: string },
): Promise<RerouteOutcome> {
  const target = await targetStation(tx, here, request.stationCode, request.trackingNumber);
  if (!target) {
    const { courierId, parcel } = await courierAndParcel(
      tx,
      here.id,
      request.courierNo,
      request.trackingNumber,
    );
    if (!courierId) return { kind: 'courier_not_verified' };
    return parcel ? { kind: 'no_station' } : { kind: 'not_found' };
  }
  await lockStations(tx, [here.id, target.id]);
  const {
    courierId,
    parcel,
    here: place,
  } = await courierAndParcel(tx, here.id, request.courierNo, request.trackingNumber);
  if (!courierId) return { kind: 'courier_not_verified' };
  if (!parcel) {
    const replay = await replayed(tx, here, target, request.trackingNumber);
    return replay ? { kind: 'replayed', body: replay } : { kind: 'not_found' };
  }
  const moved = await moveBooking(tx, parcel, here, target);
  if (!moved) {
    throw new StationFullProblem(
      parcel.parcel_size,
      parcel.accessible_door,
      (await stationsWithRoom(tx, place, parcel)).filter((s) => s.id !== target.id),
    );
  }
  await tx`
    insert into tracking_events (shipment_id, status, occurred_at, station_id, rerouted_from_station_id)
    values (${parcel.id}, 'booked', now(), ${target.id}, ${here.id})`;
  await queueSms(
    tx,
    parcel.id,
    reroutedMessage(
      { ...parcel, station_name: target.name },
      { stationName: target.name, address: target.address, fromStationName: here.name },
    ),
  );
  await recordShipmentEvent(tx, moved, 'shipment.rerouted', {
    reroutedFrom: { station_id: here.id, station_code: here.code },
  });
  return { kind: 'rerouted', body: answer(parcel, target, moved.reserved_until!) };
}

function answer(
  parcel: Pick<Parcel, 'tracking_number' | 'sandbox'>,
  target: Target,
  heldUntil: Date,
): DepositRerouteResponse {
  return {
    ok: true,
    trackingNumber: parcel.tracking_number,
    station: overflowStation(target),
    held_until: heldUntil.toISOString(),
    recipient_notified: !parcel.sandbox,
  };
}

/**
 * The booking moves: its old reservation goes, a door at the target is held for the
 * target's `reservation_hours` (the smallest free one it fits, within reach if booked
 * so), and the shipment names the target. Undefined, with nothing changed but the old
 * reservation (the caller's refusal rolls it back), when the target has no such door.
 */
async function moveBooking(
  tx: TransactionSql,
  parcel: Parcel,
  here: TerminalStation,
  target: Target,
): Promise<ShipmentView | undefined> {
  // Its own statement: the reservation's shipment key is unique, and a CTE's insert
  // would not see a sibling's delete.
  await tx`delete from door_reservations where shipment_id = ${parcel.id}`;
  const door = smallestFreeDoorQuery(tx, target.id, parcel.parcel_size, {
    shipmentId: parcel.id,
    accessible: parcel.accessible_door,
  });
  const [moved] = await tx<ShipmentView[]>`
    with door as (${door}),
    held as (
      insert into door_reservations (door_id, station_id, shipment_id, until)
      select door.id, s.id, ${parcel.id}, now() + make_interval(hours => s.reservation_hours)
        from door, stations s where s.id = ${target.id}
      on conflict (door_id) do update
        set station_id = excluded.station_id, shipment_id = excluded.shipment_id,
            until = excluded.until, created_at = now()
        where door_reservations.until <= now()
      returning until)
    update shipments sh
       set destination_station_id = s.id, reserved_until = held.until, slot_no = null,
           updated_at = now()
      from stations s, held
     where sh.id = ${parcel.id} and sh.status = 'booked'
       and sh.destination_station_id = ${here.id} and s.id = ${target.id}
    returning ${shipmentColumns(tx)}`;
  return moved;
}

/** The answer of a reroute from here to `target` already made, if that is what happened. */
async function replayed(
  tx: TransactionSql,
  here: TerminalStation,
  target: Target,
  trackingNumber: string,
): Promise<DepositRerouteResponse | undefined> {
  const [row] = await tx<
    { tracking_number: string; sandbox: boolean; reserved_until: Date | null }[]
  >`
    select sh.tracking_number, o.sandbox, sh.reserved_until
      from shipments sh
      join organizations o on o.id = sh.organization_id
      join lateral (select t.station_id, t.rerouted_from_station_id from tracking_events t
                     where t.shipment_id = sh.id order by t.id desc limit 1) last on true
     where sh.tracking_number = ${trackingNumber} and sh.status = 'booked'
       and sh.destination_station_id = ${target.id}
       and last.station_id = ${target.id} and last.rerouted_from_station_id = ${here.id}`;
  if (!row?.reserved_until) return undefined;
  return answer(row, target, row.reserved_until);
}

/**
 * POST /terminal/v1/deposit/reroute {courierNo, trackingNumber, stationCode}: the parcel
 * this full station cannot take goes to `stationCode` instead, with a door held there.
 */
export function depositReroute(services: Services): Middleware {
  return async (ctx) => {
    const request = validate(DepositRerouteRequestSchema, await readJson(ctx));
    const station = stationOf(ctx.state.terminal);
    const outcome = await transaction(services.sql, (tx) => rerouteParcel(tx, station, request));
    switch (outcome.kind) {
      case 'courier_not_verified':
        throw courierNotVerified();
      case 'not_found':
        throw notAwaitingHere();
      case 'no_station':
        throw problem.notFound(
          `No other station with that code within ${OVERFLOW_RADIUS_M / 1000} km of this one.`,
        );
      case 'rerouted':
        services.nudge.sms();
        services.nudge.webhooks();
        ctx.body = outcome.body;
        return;
      case 'replayed':
        ctx.body = outcome.body;
        return;
      default: {
        const unreachable: never = outcome;
        throw new Error(`unhandled reroute outcome ${JSON.stringify(unreachable)}`);
      }
    }
  };
}
