import { z } from 'zod';
import { text } from './common';
import { StationSchema } from './terminal';

/**
 * A kiosk's life in the field (docs/terminal-extensions.md): enrolment and rotating
 * device tokens. Extensions of the terminal interface; no spec endpoint changes shape.
 */

/** Ten digits; spaces and dashes as printed (`4821-0937-55`) are allowed and ignored. */
export const EnrolRequestSchema = z.strictObject({
  code: text().max(40),
});
export type EnrolRequest = z.infer<typeof EnrolRequestSchema>;

export const EnrolResponseSchema = z.strictObject({
  terminal_id: text(),
  /** The kiosk's device token, answered once; the service keeps its hash. */
  token: text(),
  station: StationSchema,
});
export type EnrolResponse = z.infer<typeof EnrolResponseSchema>;

/** `POST /terminal/v1/credentials`: the current token asks whether it should be replaced. */
export const CredentialsResponseSchema = z.strictObject({
  /** A new token to store durably, then to use; null while the current one is young. */
  next_token: text().nullable(),
  /** When the current token is due to be replaced. */
  rotate_after: z.iso.datetime({ offset: true }),
});
export type CredentialsResponse = z.infer<typeof CredentialsResponseSchema>;

/** What the operator gets for a terminal to enrol: shown once. */
export const EnrolmentCodeSchema = z
  .strictObject({
    /** Ten digits in groups, as typed on the kiosk: `4821-0937-55`. */
    code: text(),
    expires_at: z.iso.datetime({ offset: true }),
    /** The same code as a QR code (SVG), for a scanner at the kiosk. */
    qr_svg: text(),
  })
  .meta({ id: 'EnrolmentCode' });
export type EnrolmentCode = z.infer<typeof EnrolmentCodeSchema>;

/**
 * Signed, staged kiosk updates (docs/terminal-extensions.md, "Kiosk updates"). A release
 * is a bundle (tar.gz of the deployed kiosk) and this manifest, signed with the
 * operator's release key (Ed25519); the kiosk holds only the public key.
 */
export const ReleaseManifestSchema = z
  .strictObject({
    version: text().regex(/^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/),
    /** SHA-256 of the bundle, hex. */
    sha256: text().regex(/^[0-9a-f]{64}$/),
    /** The bundle's size in bytes. */
    size: z.number().int().positive(),
    /** Ed25519 over `releaseSigningText(manifest)`, base64. */
    signature: text().min(1).max(200),
  })
  .meta({ id: 'ReleaseManifest' });
export type ReleaseManifest = z.infer<typeof ReleaseManifestSchema>;

/** The bytes the release key signs: the manifest's fields, one a line, domain-tagged. */
export function releaseSigningText(m: Pick<ReleaseManifest, 'version' | 'sha256' | 'size'>) {
  return `parcel-locker-kiosk-release\n${m.version}\n${m.sha256}\n${m.size}\n`;
}

/** `GET /terminal/v1/update`: the release this terminal should run, if any. */
export const UpdateAssignmentSchema = z.strictObject({
  release: ReleaseManifestSchema.nullable(),
});
export type UpdateAssignment = z.infer<typeof UpdateAssignmentSchema>;

export const UPDATE_OUTCOMES = ['running', 'rolled_back', 'refused'] as const;
export type UpdateOutcome = (typeof UPDATE_OUTCOMES)[number];

/** `POST /terminal/v1/update/report`: what became of a release on this kiosk. */
export const UpdateReportRequestSchema = z.strictObject({
  version: text().min(1).max(64),
  /** running: healthy on it; rolled_back: went back by itself; refused: not installed. */
  outcome: z.enum(UPDATE_OUTCOMES),
  detail: text().max(500).optional(),
});
export type UpdateReportRequest = z.infer<typeof UpdateReportRequestSchema>;

/** `PUT /ops/v1/kiosk-rollout`: which release goes to which ring. */
export const RolloutRequestSchema = z
  .strictObject({
    version: text().min(1).max(64),
    /** Ring 1: these stations (codes) take it at once. */
    pilotStations: z.array(text().min(1).max(32)).max(200).default([]),
    /** Ring 2: this share of all terminals (stable per terminal); 100 is every kiosk. */
    percent: z.number().int().min(0).max(100).default(0),
  })
  .meta({ id: 'RolloutRequest' });
export type RolloutRequest = z.infer<typeof RolloutRequestSchema>;

export const RolloutSchema = z
  .strictObject({
    version: text(),
    pilotStations: z.array(text()),
    percent: z.number().int(),
    updatedAt: z.iso.datetime({ offset: true }),
    updatedBy: text(),
    /** Every terminal: what it runs (its heartbeat's appVersion) and its last report. */
    terminals: z.array(
      z.strictObject({
        id: text(),
        stationCode: text().nullable(),
        assigned: z.boolean(),
        appVersion: text().nullable(),
        lastReport: z
          .strictObject({
            version: text(),
            outcome: z.enum(UPDATE_OUTCOMES),
            detail: text().nullable(),
            at: z.iso.datetime({ offset: true }),
          })
          .nullable(),
      }),
    ),
  })
  .meta({ id: 'Rollout' });
export type Rollout = z.infer<typeof RolloutSchema>;
