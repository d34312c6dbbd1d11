import type { Language, Reservation, Shipment, ShipmentStatus, Size } from '@locker/shared';
import type { Sql, TransactionSql } from '../db/connect';

/**
 * A shipment row joined with its destination station: the read model every interface
 * shares (the merchant's answers, webhook events, the terminal's writes that answer it).
 */
export interface ShipmentView {
  id: string;
  organization_id: string;
  tracking_number: string;
  status: ShipmentStatus;
  destination_station_id: string;
  station_code: string;
  station_name: string;
  cabinet_sn: string;
  slot_no: number | null;
  parcel_size: Size;
  recipient_name: string;
  recipient_phone: string;
  recipient_language: Language;
  merchant_order_reference: string | null;
  created_at: Date;
  updated_at: Date;
  /** The booking asked for a door within reach (issue 27). */
  accessible_door: boolean;
  /** The booking reserved a door until then; null: it reserved none. */
  reserved_until: Date | null;
}

/** The columns of ShipmentView; `sh` is shipments, `s` its destination station. */
export function shipmentColumns(db: Sql | TransactionSql) {
  return db`
    sh.id, sh.organization_id, sh.tracking_number, sh.status, sh.destination_station_id,
    s.code as station_code, s.name as station_name, s.cabinet_sn, sh.slot_no, sh.parcel_size,
    sh.recipient_name, sh.recipient_phone, sh.recipient_language, sh.merchant_order_reference,
    sh.created_at, sh.updated_at, sh.accessible_door, sh.reserved_until`;
}

/** The shipments with their destination stations, as `sh` and `s` (for ShipmentView). */
export function shipmentsWithStations(db: Sql | TransactionSql) {
  return db`shipments sh join stations s on s.id = sh.destination_station_id`;
}

/** The shipment as every interface reads it; undefined when no shipment has that id. */
export async function shipmentView(
  db: Sql | TransactionSql,
  id: string,
): Promise<ShipmentView | undefined> {
  const [row] = await db<ShipmentView[]>`
    select ${shipmentColumns(db)} from ${shipmentsWithStations(db)} where sh.id = ${id}`;
  return row;
}

/**
 * The merchant's view of a shipment, field by field: internal columns (pickup-code hash,
 * courier, occupancy) can never leak through it, and the pickup code is never returned.
 */
export function presentShipment(row: ShipmentView): Shipment {
  return {
    id: row.id,
    tracking_number: row.tracking_number,
    status: row.status,
    destination: { cabinet_sn: row.cabinet_sn, slot_no: row.slot_no },
    destination_station_id: row.destination_station_id,
    destination_station_code: row.station_code,
    parcel_size: row.parcel_size,
    recipient_name: row.recipient_name,
    recipient_phone: row.recipient_phone,
    recipient_language: row.recipient_language,
    merchant_order_reference: row.merchant_order_reference,
    label_url: `/api/v1/shipments/${row.id}/label`,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    // Extensions only when asked for: other bookings read exactly as before.
    ...(row.reserved_until ? { reservation: reservationOf(row, row.reserved_until) } : {}),
    ...(row.accessible_door ? { accessible_door: true as const } : {}),
  };
}

/** What became of a booking's reservation, from the shipment alone. */
function reservationOf(row: ShipmentView, heldUntil: Date): Reservation {
  const status =
    row.status === 'cancelled'
      ? 'released'
      : row.status !== 'booked'
        ? 'used'
        : heldUntil.getTime() > Date.now()
          ? 'held'
          : 'lapsed';
  return { status, held_until: heldUntil.toISOString() };
}
