import { createHmac, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// The offline pickup verifier (docs/terminal-extensions.md, "Offline pickup"): what a
// kiosk keeps so it can check a pickup code while the service is unreachable, never the
// code itself. The server makes one when it draws a code; the kiosk checks a typed code
// against its station's set. One implementation for both sides, so they cannot disagree.
// Node only (node:crypto): not exported from the package's main entry, which the kiosk's
// renderer may bundle.

/** scrypt's cost, in the verifier's own text so it can change without breaking old ones. */
export interface ScryptCost {
  /** log2 of N, scrypt's CPU and memory cost (memory: 128 · N · r bytes). */
  ln: number;
  r: number;
  p: number;
}

/**
 * 2^14 · 8 · 128 = 16 MiB and ~75 ms per guess on this project's 2-core machine under load
 * (README, "Measured here"): a keypad check stays far under 300 ms on a slower kiosk,
 * while every guess of an attacker holding the verifiers costs that memory and time.
 */
export const OFFLINE_SCRYPT: ScryptCost = { ln: 14, r: 8, p: 1 };
const KEY_LENGTH = 32;

/**
 * The station's key, which salts every verifier of the station: derived from the server's
 * pickup-code secret and the station's id, so a verifier is worthless at any other station
 * and a table of guesses made for one station is useless at the next.
 */
export function stationVerifierSalt(pickupCodeSecret: string, stationId: string): Buffer {
  return createHmac('sha256', pickupCodeSecret)
    .update(`offline-pickup-salt\0${stationId}`, 'utf8')
    .digest()
    .subarray(0, 16);
}

/**
 * The salt of courier-number verifiers: one for the whole network (a courier deposits at
 * many stations, and the service can make a courier's verifier once, not once a station).
 */
export function courierVerifierSalt(pickupCodeSecret: string): Buffer {
  return createHmac('sha256', pickupCodeSecret)
    .update('offline-courier-salt', 'utf8')
    .digest()
    .subarray(0, 16);
}

function options(cost: ScryptCost): ScryptOptions {
  const N = 2 ** cost.ln;
  return { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r * cost.p + 1024 * 1024 };
}

function derive(code: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(code, salt, KEY_LENGTH, options(cost), (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

const FORMAT =
  /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

/** `$scrypt$ln=14,r=8,p=1$<salt, base64>$<hash, base64>` (the PHC string format's shape). */
export async function makeVerifier(
  code: string,
  salt: Buffer,
  cost: ScryptCost = OFFLINE_SCRYPT,
): Promise<string> {
  const hash = await derive(code, salt, cost);
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export interface ParsedVerifier {
  /** Verifiers sharing this (cost and salt) are checked with one derivation. */
  group: string;
  cost: ScryptCost;
  salt: Buffer;
  hash: Buffer;
}

/** Null for anything that is not a verifier this code can check (or one too costly). */
export function parseVerifier(verifier: string): ParsedVerifier | null {
  const m = FORMAT.exec(verifier);
  if (!m) return null;
  const cost = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  // A cost no kiosk can afford at the keypad is refused rather than tried.
  if (cost.ln < 10 || cost.ln > 20 || cost.r < 1 || cost.r > 16 || cost.p < 1 || cost.p > 4)
    return null;
  const hash = Buffer.from(m[5]!, 'base64');
  if (hash.length !== KEY_LENGTH) return null;
  return {
    group: verifier.slice(0, verifier.lastIndexOf('$')),
    cost,
    salt: Buffer.from(m[4]!, 'base64'),
    hash,
  };
}

/**
 * Which of `verifiers` `code` matches (their indexes): one scrypt derivation per distinct
 * cost and salt (one, normally: the station's), then a constant-time comparison with each.
 */
export async function matchVerifiers(
  code: string,
  verifiers: readonly ParsedVerifier[],
): Promise<number[]> {
  const derived = new Map<string, Promise<Buffer>>();
  const matches: number[] = [];
  for (const [i, v] of verifiers.entries()) {
    let key = derived.get(v.group);
    if (!key) derived.set(v.group, (key = derive(code, v.salt, v.cost)));
    if (timingSafeEqual(await key, v.hash)) matches.push(i);
  }
  return matches;
}
