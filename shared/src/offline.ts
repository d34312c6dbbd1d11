import { z } from 'zod';
import { INT4_MAX, OccurredAtSchema, SizeSchema, text } from './common';

// Extensions of the terminal interface for a locker that works on its own through an
// outage (docs/terminal-extensions.md, "Offline operation").

/**
 * `GET /terminal/v1/offline/pickups`: what the kiosk needs to check its own station's
 * pickup codes while the service is unreachable, and only that. Sent with an ETag; an
 * unchanged set answers 304.
 */
export const OfflinePickupsResponseSchema = z.strictObject({
  /**
   * Changes with every change to the set: the station's cabinet version and its count of
   * offline verifiers made, `"<cabinet>.<verifiers>"`. Opaque to the kiosk.
   */
  version: text(),
  pickups: z.array(
    z.strictObject({
      shipmentId: z.guid(),
      door: z.number().int(),
      /** Past this the kiosk refuses the code offline (the parcel may be taken out). */
      collectUntil: z.iso.datetime({ offset: true }),
      /** A slow, salted, station-keyed hash of the code (`@locker/shared/verifier`). */
      verifier: text(),
    }),
  ),
});
export type OfflinePickupsResponse = z.infer<typeof OfflinePickupsResponseSchema>;

/**
 * `GET /terminal/v1/offline/deposits`: what the kiosk needs to take couriers' deposits
 * while the service is unreachable, and nothing personal: the station's doors as the
 * service knows them, the parcels it expects (tracking number, size), and verifiers of
 * the couriers who deposit here. Sent with an ETag; an unchanged set answers 304.
 */
export const OfflineDepositsResponseSchema = z.strictObject({
  doors: z.array(
    z.strictObject({
      position: z.number().int(),
      size: SizeSchema.nullable(),
      /** What a deposit may get: empty, in service, of known size. */
      free: z.boolean(),
    }),
  ),
  expected: z.array(z.strictObject({ trackingNumber: text(), size: SizeSchema })),
  /** Verifiers of courier numbers (`@locker/shared/verifier`), salted network-wide. */
  couriers: z.array(text()),
});
export type OfflineDepositsResponse = z.infer<typeof OfflineDepositsResponseSchema>;

/**
 * `POST /terminal/v1/offline/deposit`: a deposit the kiosk made on its own, reported with
 * the door it chose and when the parcel went in.
 */
export const OfflineDepositRequestSchema = z.strictObject({
  courierNo: text().min(1).max(64),
  trackingNumber: text().min(1).max(64),
  door: z.number().int().min(1).max(INT4_MAX),
  occurred_at: OccurredAtSchema.optional(),
});
export type OfflineDepositRequest = z.infer<typeof OfflineDepositRequestSchema>;
