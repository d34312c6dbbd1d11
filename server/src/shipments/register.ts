import type { Language, Size } from '@locker/shared';
import type { Sql, TransactionSql } from '../db/connect';
import { shipmentColumns, type ShipmentView } from './view';
import { newTrackingNumber } from '../domain/trackingNumber';

export interface NewShipment {
  destinationStationId: string;
  parcelSize: Size;
  recipientName: string;
  recipientPhone: string;
  recipientLanguage: Language;
  merchantOrderReference?: string | undefined;
  /** Only a door within reach, at deposit (issue 27). */
  accessibleDoor?: boolean | undefined;
}

/**
 * Registers a shipment for `organizationId` and answers it with its station, in one
 * statement (its own transaction when the caller has none): status `booked` (the
 * trigger records the first tracking event) and a fresh tracking number. Answers
 * undefined when the destination station does not exist (for this organization: a
 * sandbox's stations are its own).
 */
export async function registerShipment(
  db: Sql | TransactionSql,
  organizationId: string,
  input: NewShipment,
): Promise<ShipmentView | undefined> {
  for (;;) {
    // A sandbox organization ships only to its own simulated stations, everyone else only
    // to real ones: to either, the other kind does not exist.
    const [view] = await db<ShipmentView[]>`
      with sh as (
        insert into shipments (
          organization_id, tracking_number, destination_station_id, parcel_size,
          recipient_name, recipient_phone, recipient_language, merchant_order_reference,
          accessible_door)
        select o.id, ${newTrackingNumber()}, s.id, ${input.parcelSize}, ${input.recipientName},
               ${input.recipientPhone}, ${input.recipientLanguage},
               ${input.merchantOrderReference ?? null}, ${input.accessibleDoor ?? false}
          from stations s, organizations o
         where s.id = ${input.destinationStationId} and o.id = ${organizationId}
           and s.sandbox_organization_id is not distinct from (case when o.sandbox then o.id end)
        on conflict (tracking_number) do nothing
        returning *)
      select ${shipmentColumns(db)} from sh join stations s on s.id = sh.destination_station_id`;
    if (view) return view;
    // Nothing inserted: no such station, or (rarely: 9 * 10^11 numbers) a tracking number
    // already taken, which is drawn again rather than failing the merchant.
    const [station] = await db`
      select 1 from stations s, organizations o
       where s.id = ${input.destinationStationId} and o.id = ${organizationId}
         and s.sandbox_organization_id is not distinct from (case when o.sandbox then o.id end)`;
    if (!station) return undefined;
  }
}
