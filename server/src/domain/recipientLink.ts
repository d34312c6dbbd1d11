import { createCipheriv, createDecipheriv, createHash, randomInt } from 'node:crypto';

// The recipient's page link (docs/decisions.md, "Pickup without typing"): an unguessable
// token in the pickup SMS that opens a page with the pickup code as a QR code. The
// service keeps the token only as a hash (to find the parcel) and the code only sealed
// with a key derived from the token: without the link, the database shows neither the
// link nor the code. Both die with the code (migration 015).

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** 16 characters of 62: 95 bits, unguessable, and short enough for the SMS's budget. */
export const LINK_TOKEN_LENGTH = 16;
export const LINK_TOKEN_PATTERN = /^[A-Za-z0-9]{16}$/;

export function newLinkToken(): string {
  let token = '';
  for (let i = 0; i < LINK_TOKEN_LENGTH; i++) token += ALPHABET[randomInt(ALPHABET.length)];
  return token;
}

/** How the token is stored and looked up. */
export function linkTokenHash(token: string): Buffer {
  return createHash('sha256').update(`recipient-link\0${token}`, 'utf8').digest();
}

function sealKey(token: string): Buffer {
  return createHash('sha256').update(`pickup-code-seal\0${token}`, 'utf8').digest();
}

/** The code sealed with the token's key (AES-256-GCM): IV, tag, ciphertext. */
export function sealCode(token: string, code: string): Buffer {
  const iv = Buffer.from(Array.from({ length: 12 }, () => randomInt(256)));
  const cipher = createCipheriv('aes-256-gcm', sealKey(token), iv);
  const sealed = Buffer.concat([cipher.update(code, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

/** The code, or null when the seal does not open with this token. */
export function openCode(token: string, sealed: Buffer): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealKey(token), sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
