import { ShipmentSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { presentShipment, type ShipmentView } from './view';

// The merchant's view of a stored shipment: a pure function, tested without a database.
const row: ShipmentView = {
  id: '0b7f3c2e-1d4a-4f8e-9a6b-2c5d8e1f0a3b',
  organization_id: '5a1e9c3d-7b2f-4e6a-8d0c-1f3b5a7c9e2d',
  tracking_number: '4012888888881',
  status: 'ready_for_pickup',
  destination_station_id: '9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  station_code: 'PR-01',
  station_name: 'Prizren Qendra',
  cabinet_sn: 'KR-PR-1',
  slot_no: 3,
  parcel_size: 'M',
  recipient_name: 'Drita Gashi Berisha',
  recipient_phone: '+38344123456',
  recipient_language: 'sq',
  merchant_order_reference: 'SO-1',
  created_at: new Date('2025-03-10T12:00:00.000Z'),
  updated_at: new Date('2025-03-10T12:05:00.000Z'),
  accessible_door: false,
  reserved_until: null,
};

describe('presentShipment', () => {
  it('answers the documented shape, field by field, with its label link and ISO times', () => {
    const shipment = presentShipment(row);
    expect(ShipmentSchema.parse(shipment)).toEqual(shipment);
    expect(shipment).toEqual({
      id: row.id,
      tracking_number: '4012888888881',
      status: 'ready_for_pickup',
      destination: { cabinet_sn: 'KR-PR-1', slot_no: 3 },
      destination_station_id: row.destination_station_id,
      destination_station_code: 'PR-01',
      parcel_size: 'M',
      recipient_name: 'Drita Gashi Berisha',
      recipient_phone: '+38344123456',
      recipient_language: 'sq',
      merchant_order_reference: 'SO-1',
      label_url: `/api/v1/shipments/${row.id}/label`,
      created_at: '2025-03-10T12:00:00.000Z',
      updated_at: '2025-03-10T12:05:00.000Z',
    });
  });

  it('never carries what the row has beyond the merchant view, even when the row has more', () => {
    const stored = { ...row, pickup_code_hash: Buffer.from('secret'), deposited_by: 'c1' };
    const shipment = presentShipment(stored);
    expect(Object.keys(shipment)).not.toContain('pickup_code_hash');
    expect(Object.keys(shipment)).not.toContain('organization_id');
    expect(JSON.stringify(shipment)).not.toContain('c1"');
  });
});
