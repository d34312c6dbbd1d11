import type { Language, Size } from '@locker/shared';
import type { Sql, TransactionSql } from '../db/connect';
import { newTrackingNumber } from './trackingNumber';

export interface NewShipment {
  destinationStationId: string;
  parcelSize: Size;
  recipientName: string;
  recipientPhone: string;
  recipientLanguage: Language;
  merchantOrderReference?: string | undefined;
}

export interface ShipmentRow {
  id: string;
  organization_id: string;
  tracking_number: string;
  destination_station_id: string;
  parcel_size: Size;
  recipient_name: string;
  recipient_phone: string;
  recipient_language: Language;
  merchant_order_reference: string | null;
  status: string;
  slot_no: number | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * Registers a shipment for `organizationId`: status `booked` (the trigger records the
 * first tracking event) and a fresh tracking number. Answers undefined when the
 * destination station does not exist (for this organization: a sandbox's
 * stations are its own). Works inside the caller's transaction.
 */
export async function registerShipment(
  db: Sql | TransactionSql,
  organizationId: string,
  input: NewShipment,
): Promise<ShipmentRow | undefined> {
  // A sandbox organization ships only to its own simulated stations, everyone else only to
  // real ones: to either, the other kind does not exist.
  const [station] = await db`
    select s.id from stations s, organizations o
     where s.id = ${input.destinationStationId} and o.id = ${organizationId}
       and s.sandbox_organization_id is not distinct from (case when o.sandbox then o.id end)`;
  if (!station) return undefined;
  for (;;) {
    // 9 * 10^11 numbers make a clash rare; draw again rather than fail the merchant.
    const [shipment] = await db<ShipmentRow[]>`
      insert into shipments (
        organization_id, tracking_number, destination_station_id, parcel_size,
        recipient_name, recipient_phone, recipient_language, merchant_order_reference)
      values (${organizationId}, ${newTrackingNumber()}, ${input.destinationStationId},
              ${input.parcelSize}, ${input.recipientName}, ${input.recipientPhone},
              ${input.recipientLanguage}, ${input.merchantOrderReference ?? null})
      on conflict (tracking_number) do nothing
      returning *`;
    if (shipment) return shipment;
  }
}
