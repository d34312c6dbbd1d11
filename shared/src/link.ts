import { z } from 'zod';
import { text } from './common';

// The live link between a kiosk and the service (docs/terminal-extensions.md, "The live
// link"): one WebSocket per kiosk at `GET /terminal/v1/link`, JSON text messages, each an
// object with a `type`. Both sides ignore a message whose type they do not know, and
// fields they do not know, so either side can grow; a change that is not additive gets a
// new subprotocol version.

/** The WebSocket subprotocol of this version of the link. */
export const LINK_PROTOCOL = 'locker-link.v1';
/** What a command's signature covers: this line, a newline, then the payload's exact text. */
export const LINK_SIGNATURE_CONTEXT = 'locker-link-command.v1';
/** A command is executed within this long of being issued, or never. */
export const LINK_COMMAND_TTL_SECONDS = 60;

export const LINK_COMMAND_KINDS = [
  'open_door',
  'door_service',
  'refresh_config',
  'upload_logs',
  'reload_screen',
] as const;
export const LinkCommandKindSchema = z.enum(LINK_COMMAND_KINDS);
export type LinkCommandKind = z.infer<typeof LinkCommandKindSchema>;

/** Who asked for a remote open, as the kiosk's screen says it. */
export const LinkActorSchema = z.enum(['operator', 'technician']);
export type LinkActor = z.infer<typeof LinkActorSchema>;

/** Each kind's arguments. */
export const LinkCommandArgsSchemas = {
  open_door: z.object({ by: LinkActorSchema }),
  door_service: z.object({ inService: z.boolean() }),
  refresh_config: z.object({}),
  upload_logs: z.object({
    minutes: z
      .number()
      .int()
      .min(1)
      .max(24 * 60),
  }),
  reload_screen: z.object({}),
} satisfies Record<LinkCommandKind, z.ZodType>;

/**
 * What the service signs: the text of this object, exactly as sent. It names the command,
 * its station and door, when it was issued and when it stops being valid, and a random
 * nonce the kiosk remembers until then.
 */
export const LinkCommandPayloadSchema = z.object({
  v: z.literal(1),
  id: z.uuid(),
  station: text().min(1),
  /** The door a command is about; null for the kiosk as a whole. */
  door: z.number().int().positive().nullable(),
  kind: LinkCommandKindSchema,
  args: z.record(text(), z.unknown()),
  nonce: text().min(16).max(64),
  issuedAt: z.iso.datetime({ offset: true }),
  expiresAt: z.iso.datetime({ offset: true }),
});
export type LinkCommandPayload = z.infer<typeof LinkCommandPayloadSchema>;

/** What became of a command, as the kiosk reports it. */
export const LINK_OUTCOMES = [
  // A remote open: exactly the outcomes of any open.
  'opened',
  'did_not_open',
  'unknown',
  'already_open',
  // Any other command carried out, or that failed.
  'done',
  'failed',
  // Arrived after its expiry: not run.
  'expired',
  // Not for this kiosk (another station, a door it has not): not run.
  'refused',
] as const;
export const LinkOutcomeSchema = z.enum(LINK_OUTCOMES);
export type LinkOutcome = z.infer<typeof LinkOutcomeSchema>;

/** A door as the kiosk's sensors read it. */
export const LinkDoorStateSchema = z.object({
  position: z.number().int().positive(),
  /** False: its board did not answer; nothing else is known. */
  known: z.boolean(),
  closed: z.boolean().nullable(),
  /** Null where the board does not tell. */
  itemPresent: z.boolean().nullable(),
  /** A door session (a person at the screen, or a remote open) is using this door. */
  inSession: z.boolean(),
});
export type LinkDoorState = z.infer<typeof LinkDoorStateSchema>;

// Service → kiosk.

export const LinkHelloSchema = z.object({
  type: z.literal('hello'),
  protocol: z.literal(LINK_PROTOCOL),
  stationCode: text(),
  /** The service's clock when it sent this, for the kiosk to log its own skew. */
  serverTime: z.iso.datetime({ offset: true }),
  /** How often the service pings; the kiosk gives up on a silence of twice this. */
  pingSeconds: z.number().positive(),
});
export const LinkCommandMessageSchema = z.object({
  type: z.literal('command'),
  /** The signed text: a LinkCommandPayload. */
  payload: text().max(4096),
  /** Ed25519 over `LINK_SIGNATURE_CONTEXT + "\n" + payload`, base64. */
  signature: text().max(200),
});
export type LinkCommandMessage = z.infer<typeof LinkCommandMessageSchema>;
/** The door grid changed: poll `/cabinet` now. A hint only, unsigned: it opens nothing. */
export const LinkCabinetChangedSchema = z.object({
  type: z.literal('cabinet_changed'),
  version: text(),
});
/** The service has recorded a command's outcome: the kiosk may forget it. */
export const LinkOutcomeAckSchema = z.object({ type: z.literal('outcome_ack'), id: z.uuid() });

// Kiosk → service.

export const LinkOutcomeMessageSchema = z.object({
  type: z.literal('outcome'),
  id: z.uuid(),
  outcome: LinkOutcomeSchema,
  detail: z.record(text(), z.unknown()).default({}),
  at: z.iso.datetime({ offset: true }),
});
export type LinkOutcomeMessage = z.infer<typeof LinkOutcomeMessageSchema>;
/** Every door on connecting (`full`), then the doors that changed. */
export const LinkDoorsMessageSchema = z.object({
  type: z.literal('doors'),
  full: z.boolean(),
  doors: z.array(LinkDoorStateSchema).max(160),
  at: z.iso.datetime({ offset: true }),
});
export type LinkDoorsMessage = z.infer<typeof LinkDoorsMessageSchema>;
/** A message the kiosk refused outright (bad signature, replay, unreadable). Logged only. */
export const LinkRejectedSchema = z.object({
  type: z.literal('rejected'),
  reason: z.enum(['unreadable', 'unsigned', 'bad_signature', 'replayed', 'no_key']),
  id: text().max(64).nullable(),
});
export type LinkRejected = z.infer<typeof LinkRejectedSchema>;

export const LinkKioskMessageSchema = z.discriminatedUnion('type', [
  LinkOutcomeMessageSchema,
  LinkDoorsMessageSchema,
  LinkRejectedSchema,
]);
export type LinkKioskMessage = z.infer<typeof LinkKioskMessageSchema>;
export const LinkServiceMessageSchema = z.discriminatedUnion('type', [
  LinkHelloSchema,
  LinkCommandMessageSchema,
  LinkCabinetChangedSchema,
  LinkOutcomeAckSchema,
]);
export type LinkServiceMessage = z.infer<typeof LinkServiceMessageSchema>;

/** The bytes a command's signature covers. */
export function linkSignedBytes(payload: string): Uint8Array {
  return new TextEncoder().encode(`${LINK_SIGNATURE_CONTEXT}\n${payload}`);
}
