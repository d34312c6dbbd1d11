import {
  EVENT_API_VERSION,
  type Language,
  type WebhookEvent,
  type WebhookEventType,
} from '@locker/shared';
import { randomUUID } from 'node:crypto';
import type { Sql, TransactionSql } from '../db/connect';
import { presentShipment, shipmentColumns, type ShipmentView } from '../merchant/presenter';
import { firstNameOf } from '../domain/people';
import { enqueue } from '../outbox/outbox';
import { queueSms } from '../sms/channel';
import { collectedSms } from '../sms/noticeTexts';

/** What the outbox holds per delivery: the body stays in `events`, once. */
export interface QueuedWebhook {
  event_id: string;
  endpoint_id: string | null;
  type: WebhookEventType;
}

/**
 * Records an event of the shipment's organization in the caller's transaction, with the
 * shipment as it is now, and queues one delivery per enabled endpoint. The recipient's
 * notices that match an event go with it: the collection receipt SMS with
 * `shipment.collected`. Delivery happens
 * later, from the outbox: the call that caused it never waits for or fails on a
 * merchant's endpoint. Organizations without endpoints keep their events for the events
 * API.
 */
export async function queueWebhookEvent(
  tx: TransactionSql,
  shipmentId: string,
  type: WebhookEventType,
): Promise<WebhookEvent | undefined> {
  const [row] = await tx<ShipmentView[]>`
    select ${shipmentColumns(tx)}
      from shipments sh join stations s on s.id = sh.destination_station_id
     where sh.id = ${shipmentId}`;
  if (!row) return undefined;
  if (type === 'shipment.return_collected') await noteExpiryFirst(tx, shipmentId);
  const event = await recordEvent(tx, row, type);
  if (type === 'shipment.collected') await queueCollectedReceipt(tx, shipmentId);
  return event;
}

async function recordEvent(
  tx: TransactionSql,
  row: ShipmentView,
  type: WebhookEventType,
): Promise<WebhookEvent> {
  const [numbered] = await tx<{ event_seq: string }[]>`
    update organizations set event_seq = event_seq + 1
     where id = ${row.organization_id} returning event_seq`;
  const event: WebhookEvent = {
    id: randomUUID(),
    type,
    api_version: EVENT_API_VERSION,
    created_at: new Date().toISOString(),
    data: { shipment: presentShipment(row) },
  };
  await tx`
    insert into events (id, organization_id, seq, shipment_id, type, body, created_at)
    values (${event.id}, ${row.organization_id}, ${numbered!.event_seq}, ${row.id}, ${type},
            ${JSON.stringify(event)}, ${event.created_at})`;
  await queueDeliveries(tx, row.organization_id, event.id, type);
  return event;
}

/**
 * An expired delivery taken out by a courier before the sweep noticed its expiry: the
 * merchant hears `shipment.expired` first, so every expired parcel tells the same story.
 */
async function noteExpiryFirst(tx: TransactionSql, shipmentId: string): Promise<void> {
  const [expired] = await tx<{ id: string }[]>`
    update shipments sh set expired_at = sh.status_at
      from stations s
     where sh.id = ${shipmentId} and s.id = sh.destination_station_id and sh.expired_at is null
       and not exists (select 1 from returns r where r.shipment_id = sh.id)
       and sh.deposited_at + make_interval(hours => s.max_storage_hours) <= sh.status_at
    returning sh.id`;
  if (!expired) return;
  const [view] = await tx<ShipmentView[]>`
    select ${shipmentColumns(tx)}
      from shipments sh join stations s on s.id = sh.destination_station_id
     where sh.id = ${shipmentId}`;
  // As it was when it expired: still awaiting its recipient.
  await recordEvent(tx, { ...view!, status: 'ready_for_pickup' }, 'shipment.expired');
}

/** The recipient's receipt, in their language, in the same transaction as the collection. */
async function queueCollectedReceipt(tx: TransactionSql, shipmentId: string): Promise<void> {
  const [parcel] = await tx<
    {
      tracking_number: string;
      recipient_name: string;
      recipient_phone: string;
      recipient_language: Language;
      station_name: string;
    }[]
  >`
    select sh.tracking_number, sh.recipient_name, sh.recipient_phone, sh.recipient_language,
           s.name as station_name
      from shipments sh join stations s on s.id = sh.destination_station_id
     where sh.id = ${shipmentId}`;
  if (!parcel) return;
  await queueSms(tx, shipmentId, {
    to: parcel.recipient_phone,
    language: parcel.recipient_language,
    carriesCode: false,
    text: collectedSms(parcel.recipient_language, {
      firstName: firstNameOf(parcel.recipient_name),
      trackingNumber: parcel.tracking_number,
      stationName: parcel.station_name,
    }),
  });
}

/** One outbox message per enabled endpoint of the organization; answers their ids. */
export async function queueDeliveries(
  db: Sql | TransactionSql,
  organizationId: string,
  eventId: string,
  type: WebhookEventType,
): Promise<string[]> {
  const endpoints = await db<{ id: string; shipment_id: string | null }[]>`
    select w.id, e.shipment_id
      from webhook_endpoints w join events e on e.id = ${eventId}
     where w.organization_id = ${organizationId} and w.disabled_at is null
     order by w.created_at, w.id`;
  for (const endpoint of endpoints) {
    const queued: QueuedWebhook = { event_id: eventId, endpoint_id: endpoint.id, type };
    await enqueue(db as TransactionSql, 'webhook', queued, {
      organizationId,
      shipmentId: endpoint.shipment_id,
    });
  }
  return endpoints.map((e) => e.id);
}
