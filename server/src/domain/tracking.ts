/**
 * Shipment statuses of the merchant interface. Each change is a tracking event, written by
 * the `shipments_tracking_*` triggers from `status` and `status_at`.
 */
export type ShipmentStatus =
  | 'booked'
  | 'ready_for_pickup'
  | 'collected'
  | 'return_started'
  | 'returned_to_locker'
  | 'return_collected';
