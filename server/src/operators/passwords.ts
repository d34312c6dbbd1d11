import { hash, verify } from '@node-rs/argon2';

/**
 * argon2id (the library's default algorithm) at OWASP's first recommended setting:
 * 19 MiB of memory, 2 passes, 1 lane; about 30 ms a hash here.
 */
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

let dummy: Promise<string> | undefined;

/**
 * Checks a password against a stored hash. With no hash (no such account, or one not set
 * up) a dummy is checked instead, so the answer costs the same either way and the time
 * tells nothing about which accounts exist.
 */
export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  dummy ??= hashPassword('dummy password that no account has');
  const against = stored ?? (await dummy);
  let ok: boolean;
  try {
    ok = await verify(against, password);
  } catch {
    ok = false;
  }
  return ok && stored !== null;
}
