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
 * destination station does not exist. Works inside the caller's transaction.
 */
export async function registerShipment(
  db: Sql | TransactionSql,
  organizationId: string,
  input: NewShipment,
): Promise<ShipmentRow | undefined> {
  const [station] = await db`select id from stations where id = ${input.destinationStationId}`;
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
