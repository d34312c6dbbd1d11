import { z } from 'zod';
import { StationSchema } from './terminal';

/**
 * A kiosk's life in the field (docs/terminal-extensions.md): enrolment and rotating
 * device tokens. Extensions of the terminal interface; no spec endpoint changes shape.
 */

/** Ten digits; spaces and dashes as printed (`4821-0937-55`) are allowed and ignored. */
export const EnrolRequestSchema = z.strictObject({
  code: z.string().max(40),
});
export type EnrolRequest = z.infer<typeof EnrolRequestSchema>;

export const EnrolResponseSchema = z.strictObject({
  terminal_id: z.string(),
  /** The kiosk's device token, answered once; the service keeps its hash. */
  token: z.string(),
  station: StationSchema,
});
export type EnrolResponse = z.infer<typeof EnrolResponseSchema>;

/** `POST /terminal/v1/credentials`: the current token asks whether it should be replaced. */
export const CredentialsResponseSchema = z.strictObject({
  /** A new token to store durably, then to use; null while the current one is young. */
  next_token: z.string().nullable(),
  /** When the current token is due to be replaced. */
  rotate_after: z.iso.datetime({ offset: true }),
});
export type CredentialsResponse = z.infer<typeof CredentialsResponseSchema>;

/** What the operator gets for a terminal to enrol: shown once. */
export const EnrolmentCodeSchema = z
  .strictObject({
    /** Ten digits in groups, as typed on the kiosk: `4821-0937-55`. */
    code: z.string(),
    expires_at: z.iso.datetime({ offset: true }),
    /** The same code as a QR code (SVG), for a scanner at the kiosk. */
    qr_svg: z.string(),
  })
  .meta({ id: 'EnrolmentCode' });
export type EnrolmentCode = z.infer<typeof EnrolmentCodeSchema>;
