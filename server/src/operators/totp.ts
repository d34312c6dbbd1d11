import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

const ISSUER = 'Parcel Locker';
const PERIOD = 30;

function totpOf(secretBase32: string, email: string): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label: email,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new 160-bit TOTP secret, base32 (what authenticator apps take). */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app reads from a QR code. */
export function totpUri(secretBase32: string, email: string): string {
  return totpOf(secretBase32, email).toString();
}

/** The code for `at`: what an authenticator shows (tests type it). */
export function totpCode(secretBase32: string, at: Date): string {
  return totpOf(secretBase32, '-').generate({ timestamp: at.getTime() });
}

/**
 * The time step of `code` when it is valid at `at` (one step of drift either way) and
 * later than `lastStep`: a code, once accepted, is not accepted again.
 */
export function acceptedStep(
  secretBase32: string,
  code: string,
  at: Date,
  lastStep: number | null,
): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secretBase32, '-').validate({
    token: code,
    timestamp: at.getTime(),
    window: 1,
  });
  if (delta === null) return null;
  const step = Math.floor(at.getTime() / 1000 / PERIOD) + delta;
  if (lastStep !== null && step <= lastStep) return null;
  return step;
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten recovery codes of 12 characters (~60 bits each), shown once as xxxx-xxxx-xxxx. */
export function newRecoveryCodes(count = 10): string[] {
  return Array.from({ length: count }, () => {
    const chars = Array.from(
      { length: 12 },
      () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)],
    ).join('');
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`;
  });
}

/** Recovery codes are random enough that SHA-256 of the normalised code is a safe store. */
export function recoveryCodeHash(code: string): Buffer {
  const normalised = code.toLowerCase().replace(/[^a-z0-9]/g, '');
  return createHash('sha256').update(normalised).digest();
}
