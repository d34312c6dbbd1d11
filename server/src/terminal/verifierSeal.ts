import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// A pickup code kept for the verifier worker (verifierWorker.ts) between the deposit and
// the moment its offline verifier is made: encrypted, never in clear, and erased in the
// statement that stores the verifier (or by the trigger of migrations 015 and 023 when the
// code dies first). The key is derived from the server's pickup-code secret, so a database
// dump alone opens nothing; the shipment id is the associated data, so a ciphertext moved
// to another parcel's row does not open.

const IV_BYTES = 12;
const TAG_BYTES = 16;

const keys = new Map<string, Buffer>();

/** AES-256 key of the worker's ciphertexts: HKDF-SHA256 of the pickup-code secret. */
function sealKey(pickupCodeSecret: string): Buffer {
  let key = keys.get(pickupCodeSecret);
  if (!key) {
    key = Buffer.from(
      hkdfSync('sha256', pickupCodeSecret, Buffer.alloc(0), 'offline-verifier-code-seal', 32),
    );
    keys.set(pickupCodeSecret, key);
  }
  return key;
}

/** The code sealed for the worker (AES-256-GCM, random IV): IV, tag, ciphertext. */
export function sealForVerifier(
  pickupCodeSecret: string,
  shipmentId: string,
  code: string,
): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', sealKey(pickupCodeSecret), iv, {
    authTagLength: TAG_BYTES,
  });
  cipher.setAAD(Buffer.from(shipmentId, 'utf8'));
  const sealed = Buffer.concat([cipher.update(code, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

/** The code, or null when the ciphertext does not open (another secret, another parcel). */
export function openForVerifier(
  pickupCodeSecret: string,
  shipmentId: string,
  sealed: Buffer,
): string | null {
  try {
    const decipher = createDecipheriv(
      'aes-256-gcm',
      sealKey(pickupCodeSecret),
      sealed.subarray(0, IV_BYTES),
      // A tag cut short is refused, not checked on fewer bytes.
      { authTagLength: TAG_BYTES },
    );
    decipher.setAAD(Buffer.from(shipmentId, 'utf8'));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([
      decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return null;
  }
}
