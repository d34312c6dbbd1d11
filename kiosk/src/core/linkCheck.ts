import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import {
  LinkCommandArgsSchemas,
  LinkCommandMessageSchema,
  LinkCommandPayloadSchema,
  linkSignedBytes,
  type LinkCommandPayload,
  type LinkRejected,
} from '@locker/shared';

// Whether a command that arrived on the link may run: the one gate every command passes.
// Pure but for the signature check: no socket, no database, the clock and the nonces
// given.

/** SPKI header of an Ed25519 public key (RFC 8410): the pinned key is its 32 raw bytes. */
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The pinned key of the configuration (`linkPublicKey`, base64 of 32 bytes). */
export function pinnedKey(base64: string | undefined): KeyObject | undefined {
  if (!base64) return undefined;
  const raw = Buffer.from(base64, 'base64');
  if (raw.length !== 32) return undefined;
  return createPublicKey({
    key: Buffer.concat([SPKI_ED25519_PREFIX, raw]),
    format: 'der',
    type: 'spki',
  });
}

export type Checked =
  /** Signed by the service, for this station, in time, never seen: run it. */
  | { verdict: 'run'; command: LinkCommandPayload }
  /**
   * Signed by the service but not to be run: reported as this outcome, so the operator
   * learns why (`expired`, or `refused`: another station, a door this cabinet has not).
   */
  | {
      verdict: 'report';
      command: LinkCommandPayload;
      outcome: 'expired' | 'refused';
      reason: string;
    }
  /** Not the service's (or a replay of one already seen): refused, nothing reported as done. */
  | { verdict: 'reject'; reason: LinkRejected['reason']; id: string | null };

export interface CheckContext {
  key: KeyObject | undefined;
  /** This kiosk's station, as the service told it over HTTPS (the heartbeat); null before. */
  station: string | null;
  /** The doors this cabinet has. */
  doors: ReadonlySet<number>;
  now: Date;
  /** Whether this nonce was seen already (remembered until its command expires). */
  seen(nonce: string): boolean;
}

/**
 * Judges a command message, in this order: a signature by the pinned key over the exact
 * text (no key, no signature or a bad one: rejected); a readable payload; a nonce never
 * seen (else a replay: rejected); not past its expiry (reported `expired`); this kiosk's
 * station and one of its doors (else reported `refused`).
 */
export function checkCommand(message: unknown, ctx: CheckContext): Checked {
  const framed = LinkCommandMessageSchema.safeParse(message);
  const claimedId = idOf(message);
  if (!framed.success) return { verdict: 'reject', reason: 'unsigned', id: claimedId };
  if (!ctx.key) return { verdict: 'reject', reason: 'no_key', id: claimedId };
  let valid = false;
  try {
    valid = verify(
      null,
      linkSignedBytes(framed.data.payload),
      ctx.key,
      Buffer.from(framed.data.signature, 'base64'),
    );
  } catch {
    valid = false;
  }
  if (!valid) return { verdict: 'reject', reason: 'bad_signature', id: claimedId };
  let json: unknown;
  try {
    json = JSON.parse(framed.data.payload);
  } catch {
    return { verdict: 'reject', reason: 'unreadable', id: claimedId };
  }
  const parsed = LinkCommandPayloadSchema.safeParse(json);
  if (!parsed.success) return { verdict: 'reject', reason: 'unreadable', id: claimedId };
  const command = parsed.data;
  if (ctx.seen(command.nonce)) return { verdict: 'reject', reason: 'replayed', id: command.id };
  if (ctx.now.getTime() >= Date.parse(command.expiresAt))
    return { verdict: 'report', command, outcome: 'expired', reason: 'arrived after its expiry' };
  if (ctx.station === null || command.station !== ctx.station)
    return {
      verdict: 'report',
      command,
      outcome: 'refused',
      reason: ctx.station === null ? 'station not yet known' : 'meant for another station',
    };
  if (command.door !== null && !ctx.doors.has(command.door))
    return { verdict: 'report', command, outcome: 'refused', reason: 'no such door here' };
  if (!LinkCommandArgsSchemas[command.kind].safeParse(command.args).success)
    return { verdict: 'report', command, outcome: 'refused', reason: 'arguments not understood' };
  return { verdict: 'run', command };
}

/** The command id a message claims, read without trusting it (for the log only). */
function idOf(message: unknown): string | null {
  try {
    const payload = (message as { payload?: unknown }).payload;
    const id = typeof payload === 'string' ? (JSON.parse(payload) as { id?: unknown }).id : null;
    return typeof id === 'string' ? id.slice(0, 64) : null;
  } catch {
    return null;
  }
}
