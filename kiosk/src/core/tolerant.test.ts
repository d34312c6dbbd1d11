import { CabinetResponseSchema, PickupRequestSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { Answers, tolerant } from './tolerant';

const cabinet = {
  station: { code: 'PRN-01', name: 'Prishtina' },
  doors: [
    {
      position: 1,
      code: 'A1',
      size: 'S',
      status: 'occupied',
      parcel: { trackingNumber: 'T1', recipientFirstName: 'Drita', kind: 'delivery' },
    },
  ],
};

describe('tolerant reader', () => {
  it('ignores unknown fields at every depth and drops them from what it returns', () => {
    const extended = {
      ...cabinet,
      generated: 'x',
      station: { ...cabinet.station, region: 'north' },
      doors: [
        { ...cabinet.doors[0], colour: 'red', parcel: { ...cabinet.doors[0]!.parcel, w: 1 } },
      ],
    };
    expect(() => CabinetResponseSchema.parse(extended)).toThrow();
    expect(Answers.cabinet.parse(extended)).toEqual(cabinet);
  });

  it('still refuses an answer that lacks or mistypes a field the kiosk needs', () => {
    expect(Answers.pickup.safeParse({ ok: true, door: 1, trackingNumber: 'T' }).success).toBe(
      false,
    );
    expect(
      Answers.pickup.safeParse({
        ok: true,
        door: '1',
        trackingNumber: 'T',
        shipmentId: '0b7e7f5e-4c6a-4a8e-9a59-0d3c0f3f1c11',
      }).success,
    ).toBe(false);
    const nullParcel = { ...cabinet, doors: [{ ...cabinet.doors[0], parcel: null, extra: 1 }] };
    expect(Answers.cabinet.parse(nullParcel).doors[0]!.parcel).toBeNull();
  });

  it('leaves the request schemas strict', () => {
    expect(PickupRequestSchema.safeParse({ code: '1', extra: 1 }).success).toBe(false);
    expect(tolerant(PickupRequestSchema).safeParse({ code: '1', extra: 1 }).success).toBe(true);
  });
});
