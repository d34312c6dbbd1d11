import { EVENT_API_VERSION, type WebhookEvent, type WebhookEventType } from '@locker/shared';
import { randomUUID } from 'node:crypto';
import type { Sql, TransactionSql } from '../db/connect';
import { presentShipment, shipmentColumns, type ShipmentView } from '../merchant/presenter';
import { enqueue } from '../outbox/outbox';

/** What the outbox holds per delivery: the body stays in `events`, once. */
export interface QueuedWebhook {
  event_id: string;
  endpoint_id: string | null;
  type: WebhookEventType;
}

/**
 * Records an event of the shipment's organization in the caller's transaction, with the
 * shipment as it is now, and queues one delivery per enabled endpoint. Delivery happens
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
    values (${event.id}, ${row.organization_id}, ${numbered!.event_seq}, ${shipmentId}, ${type},
            ${JSON.stringify(event)}, ${event.created_at})`;
  await queueDeliveries(tx, row.organization_id, event.id, type);
  return event;
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
