import {
  CourierVerifyRequestSchema,
  DepositRequestSchema,
  type CourierVerifyResponse,
  type DepositResponse,
  type Language,
  type Size,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { TransactionSql } from '../db/connect';
import { activeCourier } from '../domain/couriers';
import { eventTime } from '../domain/occurredAt';
import { firstNameOf } from '../domain/people';
import { newPickupCode, pickupCodeHash } from '../domain/secrets';
import type { Services } from '../domain/services';
import { readJson } from '../http/body';
import { ProblemError, problem } from '../http/problem';
import { validate } from '../http/validate';
import type { QueuedSms } from '../sms/channel';
import { pickupSms } from '../sms/texts';
import { queueWebhookEvent } from '../webhooks/events';
import { stationOf, type TerminalStation } from './auth';
import { smallestFreeDoorQuery } from './doorAssignment';

/** Unknown and deactivated couriers get the same plain `ok: false`, with no reason. */
export function courierVerify({ sql }: Services): Middleware {
  return async (ctx) => {
    const { courierNo } = validate(CourierVerifyRequestSchema, await readJson(ctx));
    stationOf(ctx.state.terminal);
    const courier = await activeCourier(sql, courierNo);
    const body: CourierVerifyResponse = {
      ok: Boolean(courier),
      courierName: courier?.name ?? null,
    };
    ctx.body = body;
  };
}

interface Claim {
  courier_id: string | null;
  id: string | null;
  tracking_number: string;
  parcel_size: Size;
  recipient_name: string;
  recipient_phone: string;
  recipient_language: Language;
}

type DepositOutcome =
  | { kind: 'deposited'; door: number; trackingNumber: string }
  | { kind: 'courier_not_verified' }
  | { kind: 'not_found' }
  | { kind: 'cabinet_full'; size: Size };

/**
 * Takes the station's lock and reads the courier and the parcel, in one round trip. Rows
 * read while waiting for the lock may be stale: `assignDoor` checks the parcel again.
 */
async function claim(
  tx: TransactionSql,
  stationId: string,
  request: { courierNo: string; trackingNumber: string },
): Promise<Claim> {
  const [row] = await tx<Claim[]>`
    select c.id as courier_id, sh.id, sh.tracking_number, sh.parcel_size, sh.recipient_name,
           sh.recipient_phone, sh.recipient_language
      from stations st
      left join couriers c on c.number = ${request.courierNo} and c.active
      left join shipments sh on sh.tracking_number = ${request.trackingNumber}
                            and sh.destination_station_id = st.id and sh.status = 'booked'
     where st.id = ${stationId}
       for update of st`;
  // The terminal's station exists (authentication found it); a deleted one is a 500.
  if (!row) throw new ProblemError('internal_error');
  return row;
}

interface Assignment {
  door: number | null;
  code_taken: boolean;
  deposited: boolean;
  still_booked: boolean;
}

/**
 * One statement, after the lock (so its snapshot sees every earlier deposit here): the
 * smallest free door, the parcel marked deposited with its code, the door occupied and
 * the code SMS queued; nothing of it when the door, the parcel or the code is missing.
 */
async function assignDoor(
  tx: TransactionSql,
  station: TerminalStation,
  parcel: Claim & { id: string; courier_id: string },
  code: { hash: Buffer; sms: QueuedSms },
  at: Date,
): Promise<Assignment> {
  const [row] = await tx<Assignment[]>`
    with door as (${smallestFreeDoorQuery(tx, station.id, parcel.parcel_size)}),
    code_taken as (
      select 1 from shipments
       where destination_station_id = ${station.id} and status = 'ready_for_pickup'
         and pickup_code_hash = ${code.hash}),
    deposited as (
      update shipments
         set status = 'ready_for_pickup', status_at = ${at}, slot_no = (select position from door),
             pickup_code_hash = ${code.hash}, deposited_at = ${at}, deposited_by = ${parcel.courier_id},
             updated_at = now()
       where id = ${parcel.id} and status = 'booked'
         and exists (select 1 from door) and not exists (select 1 from code_taken)
      returning id),
    occupied as (
      insert into door_occupancy (door_id, station_id, kind, shipment_id, since)
      select door.id, ${station.id}, 'delivery', deposited.id, ${at} from door, deposited),
    -- What queueSms writes (outbox.enqueue), inline to save a round trip.
    queued as (
      insert into outbox (channel, organization_id, shipment_id, payload)
      select 'sms', null, deposited.id, ${tx.json(code.sms as never)} from deposited)
    select (select position from door) as door,
           exists (select 1 from code_taken) as code_taken,
           exists (select 1 from deposited) as deposited,
           exists (select 1 from shipments where id = ${parcel.id} and status = 'booked') as still_booked`;
  return row!;
}

async function depositParcel(
  tx: TransactionSql,
  services: Services,
  station: TerminalStation,
  request: { courierNo: string; trackingNumber: string },
  at: Date,
): Promise<DepositOutcome> {
  const parcel = await claim(tx, station.id, request);
  if (!parcel.courier_id) return { kind: 'courier_not_verified' };
  if (!parcel.id) return { kind: 'not_found' };
  const claimed = { ...parcel, id: parcel.id, courier_id: parcel.courier_id };
  for (;;) {
    // A code no parcel awaiting collection here has: drawn again on the rare clash.
    const code = newPickupCode();
    const hash = pickupCodeHash(services.config.pickupCodeSecret, code);
    const sms: QueuedSms = {
      to: parcel.recipient_phone,
      language: parcel.recipient_language,
      carriesCode: true,
      text: pickupSms(parcel.recipient_language, {
        firstName: firstNameOf(parcel.recipient_name),
        trackingNumber: parcel.tracking_number,
        stationName: station.name,
        code,
        hours: station.freeStorageHours,
      }),
    };
    const assigned = await assignDoor(tx, station, claimed, { hash, sms }, at);
    // Another deposit of the same parcel may have won while this one waited for the lock.
    if (!assigned.deposited && !assigned.still_booked) return { kind: 'not_found' };
    if (assigned.door === null) return { kind: 'cabinet_full', size: parcel.parcel_size };
    if (assigned.code_taken) continue;
    if (!assigned.deposited) throw new Error('deposit assigned a door but recorded nothing');
    await queueWebhookEvent(tx, parcel.id, 'shipment.ready_for_pickup');
    return { kind: 'deposited', door: assigned.door, trackingNumber: parcel.tracking_number };
  }
}

/**
 * One call: verify the courier, pick the smallest free door that fits, record the
 * deposit and queue the pickup-code SMS, all in one transaction under the station lock:
 * begin, claim, assign, the merchant's event, commit.
 */
export function deposit(services: Services): Middleware {
  return async (ctx) => {
    const request = validate(DepositRequestSchema, await readJson(ctx));
    const at = eventTime(request.occurred_at);
    const station = stationOf(ctx.state.terminal);
    const outcome = await services.sql.begin((tx) =>
      depositParcel(tx, services, station, request, at),
    );
    switch (outcome.kind) {
      case 'courier_not_verified':
        throw new ProblemError('courier_not_verified', 'Unknown or deactivated courier.');
      case 'not_found':
        throw problem.notFound(
          'No parcel awaiting deposit has that tracking number at this station.',
        );
      case 'cabinet_full':
        throw new ProblemError('cabinet_full', `No free door of size ${outcome.size} or larger.`);
      case 'deposited': {
        await services.cabinetChanged(station.id);
        services.nudge.sms();
        services.nudge.webhooks();
        const body: DepositResponse = {
          ok: true,
          door: outcome.door,
          trackingNumber: outcome.trackingNumber,
        };
        ctx.body = body;
        return;
      }
      default: {
        const unreachable: never = outcome;
        throw new Error(`unhandled deposit outcome ${JSON.stringify(unreachable)}`);
      }
    }
  };
}
