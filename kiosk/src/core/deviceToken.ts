import { readCredentials, writeCredentials, type Credentials } from './credentials';

/**
 * The points of a rotation a power cut can fall between, in order (the tests kill the
 * kiosk at each): the service answered a new token; it is written to a temporary file
 * beside the credentials; the file holds it beside the old one; the service saw it used;
 * the file holding the new token alone is written; it is in place.
 */
export const ROTATION_STEPS = [
  'offered',
  'next_written',
  'next_stored',
  'next_seen',
  'final_written',
  'rotated',
] as const;
export type RotationStep = (typeof ROTATION_STEPS)[number];
export type Checkpoint = (step: RotationStep) => void;

/**
 * The kiosk's device token as it is sent now, and its replacement while one is under way
 * (docs/terminal-extensions.md, "Rotating device tokens"). Every change reaches the
 * credentials file (fsync, atomic rename) before the kiosk acts on it, so whatever
 * instant the power goes, the file holds a token the service takes:
 * - the offered token is stored beside the old one before it is ever sent;
 * - while both are stored, the new one is sent (using it is what ends the old one on the
 *   service); refused, it is forgotten and the old one is sent again;
 * - once the service answered the new one, the file is rewritten with it alone.
 * Without a credentials file (a token kept in the configuration, set up by hand) the
 * token never rotates.
 */
export class DeviceToken {
  private stored: Credentials | undefined;

  constructor(
    readonly file: string | undefined,
    fallback: string,
    private readonly checkpoint: Checkpoint = () => {},
  ) {
    this.stored = file ? readCredentials(file) : undefined;
    if (!this.stored && fallback !== '') this.stored = { token: fallback };
  }

  /** A token to send; '' before the kiosk is enrolled. */
  get bearer(): string {
    return this.stored?.next ?? this.stored?.token ?? '';
  }

  get enrolled(): boolean {
    return this.bearer !== '';
  }

  /** Whether a new token is stored and not yet seen by the service. */
  get pending(): boolean {
    return this.stored?.next !== undefined;
  }

  /** Rotation needs a file to keep the new token in. */
  get rotates(): boolean {
    return this.file !== undefined;
  }

  get station(): Credentials['station'] {
    return this.stored?.station;
  }

  /** After an enrolment wrote the file: the kiosk now sends its own token. */
  reload(): void {
    if (this.file) this.stored = readCredentials(this.file);
  }

  /** The service offered `next`: stored beside the current token before it is sent. */
  offer(next: string): void {
    if (!this.file || !this.stored) return;
    this.checkpoint('offered');
    const credentials = { ...this.stored, next };
    writeCredentials(this.file, credentials, () => this.checkpoint('next_written'));
    this.stored = credentials;
    this.checkpoint('next_stored');
  }

  /** The service answered a call sent with the bearer: a pending token is now the token. */
  answered(): void {
    if (!this.file || !this.stored?.next) return;
    this.checkpoint('next_seen');
    const { next, ...rest } = this.stored;
    const credentials = { ...rest, token: next, since: new Date().toISOString() };
    writeCredentials(this.file, credentials, () => this.checkpoint('final_written'));
    this.stored = credentials;
    this.checkpoint('rotated');
  }

  /**
   * The service refused the pending token (never issued by it, or replaced): it is
   * forgotten and the old token is sent again. Returns whether there was one to forget.
   */
  refusedPending(): boolean {
    if (!this.file || !this.stored?.next) return false;
    const rest: Credentials = { ...this.stored };
    delete rest.next;
    writeCredentials(this.file, rest);
    this.stored = rest;
    return true;
  }
}
