import type { Language, Size } from '@locker/shared';
import type { Sql } from '../db/connect';
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

function isTrackingNumberClash(error: unknown): boolean {
  const e = error as { code?: string; constraint_name?: string };
  return e.code === '23505' && e.constraint_name === 'shipments_tracking_number_key';
}

/**
 * Registers a shipment for `organizationId`: status `booked` (the trigger records the
 * first tracking event) and a fresh tracking number. Answers undefined when the
 * destination station does not exist.
 */
export async function registerShipment(
  sql: Sql,
  organizationId: string,
  input: NewShipment,
): Promise<ShipmentRow | undefined> {
  for (;;) {
    try {
      const [shipment] = await sql<ShipmentRow[]>`
        insert into shipments (
          organization_id, tracking_number, destination_station_id, parcel_size,
          recipient_name, recipient_phone, recipient_language, merchant_order_reference)
        select ${organizationId}, ${newTrackingNumber()}, s.id, ${input.parcelSize},
               ${input.recipientName}, ${input.recipientPhone}, ${input.recipientLanguage},
               ${input.merchantOrderReference ?? null}
          from stations s where s.id = ${input.destinationStationId}
        returning *`;
      return shipment;
    } catch (error) {
      // 9 * 10^11 numbers make a clash rare; draw again rather than fail the merchant.
      if (!isTrackingNumberClash(error)) throw error;
    }
  }
}
