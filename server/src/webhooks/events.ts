import type { WebhookEvent } from '@locker/shared';
import { randomUUID } from 'node:crypto';
import type { TransactionSql } from '../db/connect';
import { presentShipment, shipmentColumns, type ShipmentView } from '../merchant/presenter';
import { enqueue } from '../outbox/outbox';

export interface QueuedWebhook {
  event_id: string;
  type: WebhookEvent['type'];
  /** The exact bytes sent and signed, the same on every retry. */
  body: string;
}

/**
 * Queues a webhook event in the caller's transaction, with the shipment as it is now.
 * Organizations without a webhook URL get none. Delivery happens later, from the outbox:
 * the terminal call that caused it never waits for or fails on the merchant's endpoint.
 */
export async function queueWebhookEvent(
  tx: TransactionSql,
  shipmentId: string,
  type: WebhookEvent['type'],
): Promise<void> {
  const [row] = await tx<(ShipmentView & { webhook_url: string | null })[]>`
    select ${shipmentColumns(tx)}, o.webhook_url
      from shipments sh
      join stations s on s.id = sh.destination_station_id
      join organizations o on o.id = sh.organization_id
     where sh.id = ${shipmentId}`;
  if (!row?.webhook_url) return;
  const event: WebhookEvent = {
    id: randomUUID(),
    type,
    created_at: new Date().toISOString(),
    data: { shipment: presentShipment(row) },
  };
  const queued: QueuedWebhook = { event_id: event.id, type, body: JSON.stringify(event) };
  await enqueue(tx, 'webhook', queued, { organizationId: row.organization_id, shipmentId });
}
