import { z } from 'zod';

// Extensions of the terminal interface for a locker that works on its own through an
// outage (docs/terminal-extensions.md, "Offline operation").

/**
 * `GET /terminal/v1/offline/pickups`: what the kiosk needs to check its own station's
 * pickup codes while the service is unreachable, and only that. Sent with an ETag; an
 * unchanged set answers 304.
 */
export const OfflinePickupsResponseSchema = z.strictObject({
  /** Grows with every change to the set (the station's cabinet version). */
  version: z.string(),
  pickups: z.array(
    z.strictObject({
      shipmentId: z.guid(),
      door: z.number().int(),
      /** Past this the kiosk refuses the code offline (the parcel may be taken out). */
      collectUntil: z.iso.datetime({ offset: true }),
      /** A slow, salted, station-keyed hash of the code (`@locker/shared/verifier`). */
      verifier: z.string(),
    }),
  ),
});
export type OfflinePickupsResponse = z.infer<typeof OfflinePickupsResponseSchema>;
