import { z } from 'zod';
import { OccurredAtSchema, text, type Size } from './common';
import { DepositRequestSchema } from './terminal';

// Issue 27, "several parcels, one door, one code" (docs/terminal-extensions.md, "Shared
// doors"). Extensions of the terminal interface: the spec's deposit and pickup answers
// keep their shape; what a shared door needs is asked here.

/**
 * How much of a door a parcel of each size takes: a door holds parcels whose units sum to
 * at most its own (docs/decisions.md, "Capacity (issue 27)").
 */
export const SIZE_UNITS: Record<Size, number> = { S: 1, M: 2, L: 4, XL: 8 };

/** Why a parcel may not join a door (the kiosk says it in the courier's words). */
export const SHARE_REFUSALS = [
  /** The door holds no parcel this courier deposited in this visit (the last 30 minutes). */
  'not_this_visit',
  /** The door's parcels are for another person (phone number and name differ). */
  'other_recipient',
  /** The parcel would not fit with what is in the door already. */
  'does_not_fit',
  /** The door left service, or lies out of reach for a parcel that needs a door within reach. */
  'door_unsuitable',
] as const;
export const ShareRefusalSchema = z.enum(SHARE_REFUSALS);
export type ShareRefusal = z.infer<typeof ShareRefusalSchema>;

/** The parcel the courier scanned and the door of this visit it might join. */
export const SharedDepositRequestSchema = z.strictObject({
  courierNo: text().min(1).max(64),
  trackingNumber: DepositRequestSchema.shape.trackingNumber,
  /** The door of a parcel the courier deposited in this visit. */
  door: z.number().int().min(1).max(9999),
  occurred_at: OccurredAtSchema.optional(),
});
export type SharedDepositRequest = z.infer<typeof SharedDepositRequestSchema>;

/** `POST /deposit/shared/check` asks without changing anything. */
export const SharedDepositCheckRequestSchema = SharedDepositRequestSchema.omit({
  occurred_at: true,
});
export type SharedDepositCheckRequest = z.infer<typeof SharedDepositCheckRequestSchema>;

/** Whether the parcel may join the door: the kiosk asks the courier only when it may. */
export const SharedDepositCheckResponseSchema = z.discriminatedUnion('shareable', [
  z.strictObject({
    shareable: z.literal(true),
    door: z.number().int(),
    /** How many parcels the door holds now (before this one). */
    parcelsInDoor: z.number().int().min(1),
  }),
  z.strictObject({ shareable: z.literal(false), reason: ShareRefusalSchema }),
]);
export type SharedDepositCheckResponse = z.infer<typeof SharedDepositCheckResponseSchema>;

export const SharedDepositResponseSchema = z.strictObject({
  ok: z.literal(true),
  door: z.number().int(),
  trackingNumber: text(),
  /** How many parcels the door holds now, this one included. */
  parcelsInDoor: z.number().int().min(2),
});
export type SharedDepositResponse = z.infer<typeof SharedDepositResponseSchema>;

/** `POST /pickup/door-parcels`: the parcel a pickup named (its `shipmentId`). */
export const DoorParcelsRequestSchema = z.strictObject({ shipmentId: z.guid() });
export type DoorParcelsRequest = z.infer<typeof DoorParcelsRequestSchema>;

/**
 * Every parcel awaiting pickup in that parcel's door, the named one included: one code
 * opens the door and each of them is confirmed on its own (`/door/confirm`).
 */
export const DoorParcelsResponseSchema = z.strictObject({
  door: z.number().int(),
  parcels: z.array(z.strictObject({ shipmentId: z.guid(), trackingNumber: text() })).min(1),
});
export type DoorParcelsResponse = z.infer<typeof DoorParcelsResponseSchema>;
