import type { Storage } from '@locker/shared';
import type { Middleware } from 'koa';
import type { Sql, TransactionSql } from '../db/connect';
import { transaction } from '../db/transaction';
import { isUuid } from '../domain/ids';
import { ProblemError, problem } from '../http/problem';
import type { Services } from '../services';
import { shipmentColumns, type ShipmentView } from '../shipments/view';
import { recordShipmentEvent } from '../webhooks/events';

interface StorageRow {
  free_until: Date;
  expires_at: Date;
  storage_extended_hours: number;
  extension_hours: number | null;
}

export type ExtendOutcome =
  | { kind: 'extended'; storage: Storage; view: ShipmentView }
  | { kind: 'not_found' }
  | { kind: 'not_extendable'; why: string };

/**
 * Which shipment: by id for a merchant (their own only), by tracking number for an
 * operator, by the hash of its page's link for the recipient (recipient/extend.ts).
 */
export type ShipmentRef =
  | { id: string; organizationId: string }
  | { trackingNumber: string }
  | { recipientLinkHash: Buffer };

function whereRef(tx: TransactionSql, ref: ShipmentRef) {
  if ('id' in ref) return tx`sh.id = ${ref.id} and sh.organization_id = ${ref.organizationId}`;
  if ('trackingNumber' in ref) return tx`sh.tracking_number = ${ref.trackingNumber}`;
  return tx`sh.recipient_link_hash = ${ref.recipientLinkHash}`;
}

const storageOf = (row: StorageRow): Storage => ({
  free_until: row.free_until.toISOString(),
  expires_at: row.expires_at.toISOString(),
  extended_hours: row.storage_extended_hours,
  extension_available: row.storage_extended_hours === 0 && row.extension_hours !== null,
});

/**
 * The one extension of a parcel awaiting pickup (issue 27): free and maximum storage both
 * grow by the station's `storage_extension_hours`, once, before the parcel expires. The
 * reminders are due again against the new deadlines. Merchants (their API), operators
 * (the CLI) and the recipient's own page all call this.
 */
export async function extendStorage(tx: TransactionSql, ref: ShipmentRef): Promise<ExtendOutcome> {
  const where = whereRef(tx, ref);
  const [row] = await tx<
    (ShipmentView &
      StorageRow & { extended: boolean; status_now: string; expired: boolean; taken: number })[]
  >`
    with target as (
      select sh.id, sh.status as status_now, sh.expired_at is not null as expired,
             sh.storage_extended_hours as taken, s.storage_extension_hours
        from shipments sh join stations s on s.id = sh.destination_station_id
       where ${where}
         for update of sh),
    extended as (
      update shipments sh
         set storage_extended_hours = target.storage_extension_hours,
             free_storage_reminded_at = null, expiry_reminded_at = null, updated_at = now()
        from target, stations s
       where sh.id = target.id and s.id = sh.destination_station_id
         and target.status_now = 'ready_for_pickup' and not target.expired
         and target.taken = 0 and target.storage_extension_hours is not null
         and now() < sh.deposited_at + make_interval(hours => s.max_storage_hours)
      returning ${shipmentColumns(tx)}, sh.storage_extended_hours,
                sh.deposited_at + make_interval(hours => s.free_storage_hours + sh.storage_extended_hours) as free_until,
                sh.deposited_at + make_interval(hours => s.max_storage_hours + sh.storage_extended_hours) as expires_at,
                s.storage_extension_hours as extension_hours)
    select true as extended, target.status_now, target.expired, target.taken, extended.*
      from target join extended on extended.id = target.id
    union all
    select false, target.status_now, target.expired, target.taken, ${shipmentColumns(tx)},
           sh.storage_extended_hours, null, null, s.storage_extension_hours
      from target join shipments sh on sh.id = target.id
      join stations s on s.id = sh.destination_station_id
     where not exists (select 1 from extended)`;
  if (!row) return { kind: 'not_found' };
  if (!row.extended) {
    const why =
      row.status_now !== 'ready_for_pickup'
        ? `the parcel is ${row.status_now}, not awaiting pickup`
        : row.taken > 0
          ? 'its one extension was already taken'
          : row.extension_hours === null
            ? 'its station grants no extension'
            : 'it has already expired';
    return { kind: 'not_extendable', why };
  }
  await recordShipmentEvent(tx, row, 'shipment.storage_extended');
  return { kind: 'extended', storage: storageOf(row), view: row };
}

/** Runs `extendStorage` in a transaction of its own. */
export function extendStorageNow(sql: Sql, ref: ShipmentRef): Promise<ExtendOutcome> {
  return transaction(sql, (tx) => extendStorage(tx, ref));
}

/**
 * POST /api/v1/shipments/{id}/extend: 200 with the parcel's new deadlines; 409
 * `not_extendable` saying why (not awaiting pickup, already extended, the station grants
 * none, expired); another organization's shipment is 404.
 */
export function extendShipmentStorage({ sql, nudge }: Services): Middleware {
  return async (ctx) => {
    const { id } = ctx.params as { id?: string };
    if (!id || !isUuid(id)) throw problem.notFound('No such shipment.');
    const outcome = await extendStorageNow(sql, { id, organizationId: ctx.state.organization.id });
    switch (outcome.kind) {
      case 'not_found':
        throw problem.notFound('No such shipment.');
      case 'not_extendable':
        throw new ProblemError('not_extendable', `Not extended: ${outcome.why}.`);
      case 'extended':
        nudge.webhooks();
        ctx.body = outcome.storage;
        return;
      default: {
        const unreachable: never = outcome;
        throw new Error(`unhandled extend outcome ${JSON.stringify(unreachable)}`);
      }
    }
  };
}
