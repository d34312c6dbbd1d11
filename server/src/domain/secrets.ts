import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** A credential shown once: 256 random bits behind a prefix that says what it is. */
export function newSecret(prefix: 'tdev' | 'sk' | 'whsec'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** How device tokens and API keys are stored: SHA-256, never the secret itself. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/**
 * The row was found by its hash's index; comparing again in constant time keeps the
 * final decision free of timing differences whatever the index lookup did.
 */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Eight digits from the CSPRNG, leading zeros kept. */
export function newPickupCode(): string {
  return String(randomInt(0, 100_000_000)).padStart(8, '0');
}

/** Pickup codes are stored keyed: without the server secret a database dump reveals none. */
export function pickupCodeHash(secret: string, code: string): Buffer {
  return createHmac('sha256', secret).update(code, 'utf8').digest();
}
