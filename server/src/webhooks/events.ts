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
  const event = eventOf(row, type, options.reroutedFrom);
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
 * A shipment's event recorded by the very statement that changes the shipment (issue 28:
 * a deposit holds its station's lock one statement less). `row` is the shipment as that
 * statement leaves it, but for its door and `updated_at`, which the statement decides: the
 * body is the exact bytes `recordShipmentEvent` would store, with those two values written
 * in by SQL from the CTE `changed` (its `slot_no` and `updated_at` columns). Answers the
 * CTEs `recorded` (one event per row of `changed`), `deliveries` and `receipt` (a
 * collection's receipt SMS, when `changed` has a row; none for other events).
 */
export function shipmentEventCtes(
  tx: TransactionSql,
  row: ShipmentView,
  type: WebhookEventType,
  changed: string,
) {
  const event = eventOf({ ...row, slot_no: SLOT_MARK, updated_at: UPDATED_MARK }, type);
  const json = JSON.stringify(event);
  // Each mark is a key and an unquoted value as only JSON.stringify's own structure can
  // write them: inside a string every quote is escaped, so no recipient's name can hold one.
  const slot = `"slot_no":${SLOT_MARK}`;
  const updated = `"updated_at":${JSON.stringify(UPDATED_MARK)}`;
  const [beforeSlot, afterSlot, ...extraSlot] = json.split(slot);
  const [beforeUpdated, afterUpdated, ...extraUpdated] = (afterSlot ?? '').split(updated);
  if (
    beforeSlot === undefined ||
    beforeUpdated === undefined ||
    afterUpdated === undefined ||
    extraSlot.length ||
    extraUpdated.length
  )
    throw new Error(`event ${type} has no single door and updated_at after it to write in`);
  const from = tx(changed);
  // As postgres.js reads a timestamptz and Date.toISOString writes it: milliseconds, cut.
  const iso = tx`to_char(${from}.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const body = tx`${beforeSlot + '"slot_no":'}::text || coalesce(${from}.slot_no::text, 'null')
    || ${beforeUpdated + '"updated_at":"'}::text || ${iso} || ${'"' + afterUpdated}::text`;
  const receipt = type === 'shipment.collected' ? collectionReceipt(row) : null;
  return tx`
    recorded as (
      insert into events (id, organization_id, shipment_id, type, body, created_at)
      select ${event.id}::uuid, ${from}.organization_id, ${from}.id, ${type}::text, ${body},
             ${event.created_at}::timestamptz
        from ${from}
      returning id, shipment_id),
    ${deliveriesQuery(tx, row.organization_id, type)},
    ${receiptQuery(tx, row, receipt, tx`and exists (select 1 from ${from})`)}`;
}

// Values no shipment has, marking where the statement writes its own.
const SLOT_MARK = -0x7ffffff;
const UPDATED_MARK = new Date(Date.UTC(1970, 0, 1, 0, 0, 0, 7));

/** The event as `recordShipmentEvent` stores it. */
function eventOf(
  row: ShipmentView,
  type: WebhookEventType,
  reroutedFrom?: ReroutedFrom,
): WebhookEvent {
  return {
    id: randomUUID(),
    type,
    api_version: EVENT_API_VERSION,
    created_at: new Date().toISOString(),
    data: {
      shipment: presentShipment(row),
      ...(reroutedFrom ? { rerouted_from: reroutedFrom } : {}),
    },
  };
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
function receiptQuery(
  tx: TransactionSql,
  row: ShipmentView,
  sms: QueuedSms | null,
  /** `and` a condition: the statement's change was made. */
  made = tx``,
) {
  const messages = tx`
    select null::uuid as organization_id, ${row.id}::uuid as shipment_id,
           ${tx.json(sms as never)}::jsonb as payload,
           case when o.sandbox then ${SANDBOX_SMS} end as set_aside
      from organizations o
     where o.id = ${row.organization_id} and ${sms !== null} ${made}`;
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
