import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';
import { linkSignedBytes } from '@locker/shared';

// The service's Ed25519 key for signing link commands. Settings carry the 32-byte seed
// (base64), kiosks pin the 32-byte public key (base64): both short enough for an
// environment variable and a JSON file. Node's crypto reads keys as DER, so the raw bytes
// are wrapped in the fixed PKCS#8 and SPKI headers of an Ed25519 key (RFC 8410).
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface LinkSigner {
  /** The public key kiosks pin (base64 of its 32 bytes). */
  publicKey: string;
  /** The signature of a command's payload text, base64. */
  sign(payload: string): string;
}

/** Reads a 32-byte value given in base64 or base64url; undefined when it is not one. */
export function rawKeyBytes(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(trimmed)) return undefined;
  const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 32 ? bytes : undefined;
}

export function privateKeyFromSeed(seed: Buffer): KeyObject {
  return createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
}

export function publicKeyFromRaw(raw: Buffer): KeyObject {
  return createPublicKey({
    key: Buffer.concat([SPKI_ED25519_PREFIX, raw]),
    format: 'der',
    type: 'spki',
  });
}

/** The 32 raw bytes of an Ed25519 public key, base64. */
export function rawPublicKey(key: KeyObject): string {
  const der = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return der.subarray(SPKI_ED25519_PREFIX.length).toString('base64');
}

/** A fresh key pair: the seed for the service's settings, the public key for kiosks. */
export function generateLinkKey(): { seed: string; publicKey: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const der = privateKey.export({ format: 'der', type: 'pkcs8' });
  return {
    seed: der.subarray(PKCS8_ED25519_PREFIX.length).toString('base64'),
    publicKey: rawPublicKey(privateKey),
  };
}

/** The signer of the configured seed (base64 of 32 bytes, as config.ts checked it). */
export function linkSigner(seed: string): LinkSigner {
  const bytes = rawKeyBytes(seed);
  if (!bytes) throw new Error('LINK_SIGNING_KEY must be the base64 of 32 bytes');
  const key = privateKeyFromSeed(bytes);
  return {
    publicKey: rawPublicKey(key),
    sign: (payload) => sign(null, linkSignedBytes(payload), key).toString('base64'),
  };
}
