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
import { CabinetFullProblem } from './cabinetFull';
import { validate } from '../http/validate';
import { queueSms } from '../sms/channel';
import { pickupSms } from '../sms/texts';
import { queueWebhookEvent } from '../webhooks/events';
import { stationOf, type TerminalStation } from './auth';
import { lockStation, smallestFreeDoor } from './doorAssignment';

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

interface AwaitingDeposit {
  id: string;
  tracking_number: string;
  parcel_size: Size;
  recipient_name: string;
  recipient_phone: string;
  recipient_language: Language;
}

/** A pickup code no parcel awaiting collection at the station has (the station is locked). */
async function uniquePickupCode(tx: TransactionSql, secret: string, stationId: string) {
  for (;;) {
    const code = newPickupCode();
    const hash = pickupCodeHash(secret, code);
    const [taken] = await tx`
      select 1 from shipments
       where destination_station_id = ${stationId} and status = 'ready_for_pickup'
         and pickup_code_hash = ${hash}`;
    if (!taken) return { code, hash };
  }
}

type DepositOutcome =
  | { kind: 'deposited'; door: number; trackingNumber: string }
  | { kind: 'courier_not_verified' }
  | { kind: 'not_found' }
  | { kind: 'cabinet_full'; size: Size };

async function depositParcel(
  tx: TransactionSql,
  services: Services,
  station: TerminalStation,
  request: { courierNo: string; trackingNumber: string },
  at: Date,
): Promise<DepositOutcome> {
  const courier = await activeCourier(tx, request.courierNo);
  if (!courier) return { kind: 'courier_not_verified' };
  await lockStation(tx, station.id);
  const [parcel] = await tx<AwaitingDeposit[]>`
    select id, tracking_number, parcel_size, recipient_name, recipient_phone, recipient_language
      from shipments
     where tracking_number = ${request.trackingNumber}
       and destination_station_id = ${station.id}
       and status = 'booked'
     for update`;
  if (!parcel) return { kind: 'not_found' };
  const door = await smallestFreeDoor(tx, station.id, parcel.parcel_size);
  if (!door) return { kind: 'cabinet_full', size: parcel.parcel_size };

  const { code, hash } = await uniquePickupCode(tx, services.config.pickupCodeSecret, station.id);
  await tx`
    update shipments
       set status = 'ready_for_pickup', status_at = ${at}, slot_no = ${door.position},
           pickup_code_hash = ${hash}, deposited_at = ${at}, deposited_by = ${courier.id},
           updated_at = now()
     where id = ${parcel.id}`;
  await tx`
    insert into door_occupancy (door_id, station_id, kind, shipment_id, since)
    values (${door.id}, ${station.id}, 'delivery', ${parcel.id}, ${at})`;
  await queueSms(tx, parcel.id, {
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
  });
  await queueWebhookEvent(tx, parcel.id, 'shipment.ready_for_pickup');
  return { kind: 'deposited', door: door.position, trackingNumber: parcel.tracking_number };
}

/**
 * One call: verify the courier, pick the smallest free door that fits, record the
 * deposit and queue the pickup-code SMS, all in one transaction under the station lock.
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
        throw new CabinetFullProblem(outcome.size);
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
