import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { TechnicianLogin } from '../bridge/technician';

// The technician PIN lives in the kiosk configuration only as a salted scrypt hash:
// `scrypt$<N>$<r>$<p>$<salt hex>$<hash hex>`. Make one with `pnpm --filter @locker/kiosk
// technician-pin <PIN>`.
const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
export const PIN_HASH_PATTERN = /^scrypt\$\d+\$\d+\$\d+\$[0-9a-f]{32}\$[0-9a-f]{64}$/;

export function hashTechnicianPin(pin: string, salt = randomBytes(16)): string {
  const hash = scryptSync(pin, salt, KEY_LENGTH, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('hex')}$${hash.toString('hex')}`;
}

export function verifyTechnicianPin(pin: string, stored: string): boolean {
  const [, n, r, p, salt, hash] = stored.split('$');
  const expected = Buffer.from(hash!, 'hex');
  const actual = scryptSync(pin, Buffer.from(salt!, 'hex'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected);
}

/** Wrong PINs allowed before the menu shuts for a while: a 4-digit PIN is not guessed. */
const ATTEMPTS = 5;
const LOCKOUT_MS = 5 * 60_000;

/** Checks PINs typed on the screen, and shuts the door on guessing. */
export class TechnicianGate {
  private failures = 0;
  private lockedUntil = 0;

  constructor(
    private readonly pinHash: string | undefined,
    private readonly now = () => Date.now(),
  ) {}

  login(pin: string): TechnicianLogin {
    if (!this.pinHash) return { kind: 'not_configured' };
    const wait = this.lockedUntil - this.now();
    if (wait > 0) return { kind: 'refused', retryAfterSeconds: Math.ceil(wait / 1000) };
    if (/^\d{4,12}$/.test(pin) && verifyTechnicianPin(pin, this.pinHash)) {
      this.failures = 0;
      return { kind: 'granted' };
    }
    this.failures += 1;
    if (this.failures >= ATTEMPTS) {
      this.failures = 0;
      this.lockedUntil = this.now() + LOCKOUT_MS;
      return { kind: 'refused', retryAfterSeconds: LOCKOUT_MS / 1000 };
    }
    return { kind: 'refused', retryAfterSeconds: 0 };
  }
}
