import { DepositUndoRequestSchema, type OkResponse } from '@locker/shared';
import type { Middleware } from 'koa';
import type { TransactionSql } from '../db/connect';
import { activeCourier, courierNotVerified } from './couriers';
import { reportedTime, noteClockSkew } from './reportedTime';
import type { Services } from '../services';
import { readJson } from '../http/body';
import { problem } from '../http/problem';
import { validate } from '../http/validate';
import { queueSms } from '../sms/channel';
import { disregardCodeMessage, type ParcelRecipient } from '../sms/messages';
import { queueWebhookEvent } from '../webhooks/events';
import { transaction } from '../db/transaction';
import { stationOf } from './auth';
import { lockStation } from './doorAssignment';
import { renewReservation } from '../capacity/reserve';

/**
 * POST /terminal/v1/deposit/undo (extension): the courier shut the door of a parcel they
 * had just deposited, and the sensor saw it empty. Only that courier's delivery, still
 * awaiting its recipient in a door of this station, can be undone; a repeat answers 404.
 */
export function depositUndo({ sql, cabinetChanged }: Services): Middleware {
  return async (ctx) => {
    const request = validate(DepositUndoRequestSchema, await readJson(ctx));
    const at = reportedTime(request.occurred_at);
    const station = stationOf(ctx.state.terminal);
    const courier = await activeCourier(sql, request.courierNo);
    if (!courier) throw courierNotVerified();
    const found = await transaction(sql, async (tx) => {
      await lockStation(tx, station.id); // the lock order: station first (doorAssignment.ts)
      const [freed] = await tx<{ shipment_id: string }[]>`
        delete from door_occupancy o
         using shipments sh
         where o.shipment_id = sh.id and o.kind = 'delivery' and o.station_id = ${station.id}
           and sh.tracking_number = ${request.trackingNumber}
           and sh.status = 'ready_for_pickup' and sh.deposited_by = ${courier.id}
        returning o.shipment_id`;
      if (!freed) return false;
      await noteClockSkew(tx, ctx.state.log, {
        shipmentId: freed.shipment_id,
        at,
        terminalId: ctx.state.terminal.id,
        stationId: station.id,
      });
      await undoDeposit(tx, freed.shipment_id, { at, reason: 'the courier shut the door empty' });
      return true;
    });
    if (!found)
      throw problem.notFound(
        'This courier has no parcel awaiting pickup with that tracking number here.',
      );
    await cabinetChanged(station.id);
    const body: OkResponse = { ok: true };
    ctx.body = body;
  };
}

/**
 * The parcel is not in its door after all (the door would not open, or the courier shut
 * it empty): the delivery goes back to awaiting deposit. The caller has already freed the
 * door. Its pickup code dies; a code SMS never tried is cancelled, and if one may have
 * reached the recipient's phone a notice tells them to disregard it. The merchant, who
 * heard `shipment.ready_for_pickup`, hears `shipment.deposit_cancelled`.
 */
export async function undoDeposit(
  tx: TransactionSql,
  shipmentId: string,
  change: { at: Date; reason: string },
): Promise<void> {
  const [shipment] = await tx<ParcelRecipient[]>`
    update shipments sh
       set status = 'booked', status_at = ${change.at}, slot_no = null, pickup_code_hash = null,
           joined_door = false,
           deposited_at = null, deposited_by = null, updated_at = now()
      from stations s
     where sh.id = ${shipmentId} and sh.status = 'ready_for_pickup'
       and s.id = sh.destination_station_id
    returning sh.tracking_number, sh.recipient_name, sh.recipient_phone,
              sh.recipient_language, s.name as station_name`;
  if (!shipment) return;
  // Issue 27: a booking that reserved a door holds one again until its reservation lapses.
  await renewReservation(tx, shipmentId);
  if (await codeMayHaveArrived(tx, shipmentId)) {
    await queueSms(tx, shipmentId, disregardCodeMessage(shipment));
  }
  await tx`
    update outbox set failed_at = now(), last_error = ${`cancelled: ${change.reason}`}
     where shipment_id = ${shipmentId} and channel = 'sms' and (payload->>'carriesCode')::boolean
       and delivered_at is null and failed_at is null`;
  await queueWebhookEvent(tx, shipmentId, 'shipment.deposit_cancelled');
}

/**
 * Whether a code SMS not yet disregarded was tried (delivered, or a delivery attempt
 * whose outcome nobody knows). Each is marked, so that a later undo does not send a
 * second notice for it.
 */
async function codeMayHaveArrived(tx: TransactionSql, shipmentId: string): Promise<boolean> {
  const tried = await tx`
    update outbox set payload = payload || '{"disregarded": true}'::jsonb
     where shipment_id = ${shipmentId} and channel = 'sms'
       and (payload->>'carriesCode')::boolean and payload->>'disregarded' is null
       and (delivered_at is not null or attempts > 0)
    returning id`;
  return tried.length > 0;
}
