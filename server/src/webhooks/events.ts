import {
  EVENT_API_VERSION,
  type ReroutedFrom,
  type WebhookEvent,
  type WebhookEventType,
} from '@locker/shared';
import { randomUUID } from 'node:crypto';
import type { Sql, TransactionSql } from '../db/connect';
import { presentShipment, shipmentView, type ShipmentView } from '../shipments/view';
import { insertMessages } from '../outbox/outbox';
import { SANDBOX_SMS, type QueuedSms } from '../sms/channel';
import { collectionReceipt } from '../sms/messages';

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
  const row = await shipmentView(tx, shipmentId);
  if (!row) return undefined;
  if (type === 'shipment.return_collected') await noteExpiryFirst(tx, shipmentId);
  return (await recordShipmentEvent(tx, row, type)).event;
}

/**
 * `queueWebhookEvent` for a caller that already holds the shipment as it is now (the
 * `returning` of the statement that changed it): the event, its deliveries and the
 * collection receipt in one statement. With `cabinetOf`, it also answers that station's
 * cabinet version as this transaction leaves it (the caller holds the station lock, so
 * it is the version its commit makes), to note after the commit without another query.
 */
export async function recordShipmentEvent(
  tx: TransactionSql,
  row: ShipmentView,
  type: WebhookEventType,
  options: { cabinetOf?: string; reroutedFrom?: ReroutedFrom } = {},
): Promise<{ event: WebhookEvent; cabinetVersion: string | null }> {
  const event: WebhookEvent = {
    id: randomUUID(),
    type,
    api_version: EVENT_API_VERSION,
    created_at: new Date().toISOString(),
    data: {
      shipment: presentShipment(row),
      ...(options.reroutedFrom ? { rerouted_from: options.reroutedFrom } : {}),
    },
  };
  const receipt = type === 'shipment.collected' ? collectionReceipt(row) : null;
  const [recorded] = await tx<{ cabinet_version: string | null }[]>`
    with recorded as (
      -- Numbered by the sequence and this transaction's id (migration 009): no lock taken.
      insert into events (id, organization_id, shipment_id, type, body, created_at)
      values (${event.id}, ${row.organization_id}, ${row.id}, ${type},
              ${JSON.stringify(event)}, ${event.created_at})
      returning id, shipment_id),
    ${deliveriesQuery(tx, row.organization_id, type)},
    ${receiptQuery(tx, row, receipt)}
    select (select cabinet_version from stations where id = ${options.cabinetOf ?? null}::uuid)::text
           as cabinet_version`;
  return { event, cabinetVersion: recorded?.cabinet_version ?? null };
}

/**
 * One delivery per enabled endpoint of the organization, oldest endpoint first, of the
 * event in the CTE `recorded` (its id and shipment_id), as a CTE answering the endpoints.
 */
function deliveriesQuery(tx: Sql | TransactionSql, organizationId: string, type: WebhookEventType) {
  const messages = tx`
    select ${organizationId}::uuid as organization_id, recorded.shipment_id,
           jsonb_build_object('event_id', recorded.id, 'endpoint_id', w.id, 'type', ${type}::text)
             as payload,
           null::text as set_aside
      from recorded, webhook_endpoints w
     where w.organization_id = ${organizationId} and w.disabled_at is null
     order by w.created_at, w.id`;
  return tx`
    deliveries as (
      ${insertMessages(tx, 'webhook', messages)}
      returning (payload->>'endpoint_id')::uuid as endpoint_id)`;
}

/** What `queueSms` writes, as a CTE: set aside unsent for a sandbox organization. */
function receiptQuery(tx: TransactionSql, row: ShipmentView, sms: QueuedSms | null) {
  const messages = tx`
    select null::uuid as organization_id, ${row.id}::uuid as shipment_id,
           ${tx.json(sms as never)}::jsonb as payload,
           case when o.sandbox then ${SANDBOX_SMS} end as set_aside
      from organizations o
     where o.id = ${row.organization_id} and ${sms !== null}`;
  return tx`receipt as (${insertMessages(tx, 'sms', messages)})`;
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
       and sh.deposited_at + make_interval(hours => s.max_storage_hours + sh.storage_extended_hours) <= sh.status_at
    returning sh.id`;
  if (!expired) return;
  const view = await shipmentView(tx, shipmentId);
  // As it was when it expired: still awaiting its recipient.
  await recordShipmentEvent(tx, { ...view!, status: 'ready_for_pickup' }, 'shipment.expired');
}

/** One outbox message per enabled endpoint of the organization; answers their ids. */
export async function queueDeliveries(
  db: Sql | TransactionSql,
  organizationId: string,
  eventId: string,
  type: WebhookEventType,
): Promise<string[]> {
  const queued = await db<{ endpoint_id: string }[]>`
    with recorded as (select id, shipment_id from events where id = ${eventId}),
    ${deliveriesQuery(db, organizationId, type)}
    select endpoint_id from deliveries`;
  return queued.map((q) => q.endpoint_id);
}
