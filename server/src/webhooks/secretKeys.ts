import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Sql } from '../db/connect';

/**
 * Webhook signing secrets at rest. They must be usable to sign, so they cannot be hashed:
 * they are encrypted with AES-256-GCM under a key from the environment
 * (`WEBHOOK_SECRET_KEYS`), and the key's id is stored beside each ciphertext, so keys can
 * be rotated: the first key encrypts, every listed key decrypts, and
 * `pnpm admin webhooks rotate-key` re-encrypts whatever is under another. The endpoint's
 * id is the additional authenticated data: a ciphertext copied onto another endpoint does
 * not open. A dump of the database alone signs nothing.
 */

export interface SecretKey {
  /** Stored beside each ciphertext it made. */
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

/** The first key encrypts; all of them decrypt. */
export type Keyring = SecretKey[];

/** Used where WEBHOOK_SECRET_KEYS is unset outside production: public, like the code's. */
export const DEVELOPMENT_KEYRING: Keyring = [
  { id: 'dev', key: createHash('sha256').update('development-only-webhook-secret-key').digest() },
];

/** A stored secret: a ciphertext and its key's id, or (key id null) one stored in clear. */
export interface StoredSecret {
  ciphertext: string;
  keyId: string | null;
}

/** A ciphertext under a key the keyring does not hold. */
export class UnknownSecretKey extends Error {
  override name = 'UnknownSecretKey';
  constructor(readonly keyId: string) {
    super(`webhook secrets under key "${keyId}", which WEBHOOK_SECRET_KEYS does not list`);
  }
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const aad = (endpointId: string) => Buffer.from(`webhook_endpoints:${endpointId}`);

/** base64 of IV, tag and ciphertext, under the keyring's first key. */
export function sealSecret(keyring: Keyring, endpointId: string, secret: string): StoredSecret {
  const { id, key } = keyring[0]!;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad(endpointId));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return {
    ciphertext: Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64'),
    keyId: id,
  };
}

/** The secret itself; one stored in clear (before migration 012 ran its course) as it is. */
export function openSecret(keyring: Keyring, endpointId: string, stored: StoredSecret): string {
  if (stored.keyId === null) return stored.ciphertext;
  const found = keyring.find((k) => k.id === stored.keyId);
  if (!found) throw new UnknownSecretKey(stored.keyId);
  const bytes = Buffer.from(stored.ciphertext, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', found.key, bytes.subarray(0, IV_BYTES))
    .setAAD(aad(endpointId))
    .setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([
    decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
    decipher.final(),
  ]).toString('utf8');
}

interface Row {
  id: string;
  secret: string;
  secret_key_id: string | null;
  previous_secret: string | null;
  previous_secret_key_id: string | null;
}

/**
 * Re-encrypts, under the keyring's first key, every stored secret that is not under it
 * (`only: 'clear'`: only those stored in clear, as a server does at start). Answers how
 * many endpoints changed. Safe beside running servers: each row is re-read under its lock
 * and written only if it still holds what was read.
 */
export async function resealSecrets(
  sql: Sql,
  keyring: Keyring,
  only: 'clear' | 'all' = 'all',
): Promise<number> {
  const current = keyring[0]!.id;
  let changed = 0;
  for (;;) {
    const done = await sql.begin(async (tx) => {
      const rows = await tx<Row[]>`
        select id, secret, secret_key_id, previous_secret, previous_secret_key_id
          from webhook_endpoints
         where ${
           only === 'clear'
             ? tx`secret_key_id is null or (previous_secret is not null and previous_secret_key_id is null)`
             : tx`secret_key_id is distinct from ${current}
                  or (previous_secret is not null and previous_secret_key_id is distinct from ${current})`
         }
         order by id limit 200
           for update`;
      for (const row of rows) {
        const secret = sealSecret(
          keyring,
          row.id,
          openSecret(keyring, row.id, { ciphertext: row.secret, keyId: row.secret_key_id }),
        );
        const previous =
          row.previous_secret === null
            ? null
            : sealSecret(
                keyring,
                row.id,
                openSecret(keyring, row.id, {
                  ciphertext: row.previous_secret,
                  keyId: row.previous_secret_key_id,
                }),
              );
        await tx`
          update webhook_endpoints
             set secret = ${secret.ciphertext}, secret_key_id = ${secret.keyId},
                 previous_secret = ${previous?.ciphertext ?? null},
                 previous_secret_key_id = ${previous?.keyId ?? null}
           where id = ${row.id}`;
      }
      return rows.length;
    });
    changed += done;
    if (done < 200) return changed;
  }
}

/** Key ids that stored secrets are under and the keyring does not hold. */
export async function missingKeys(sql: Sql, keyring: Keyring): Promise<string[]> {
  const rows = await sql<{ key_id: string }[]>`
    select distinct key_id from webhook_endpoints,
           unnest(array[secret_key_id, previous_secret_key_id]) as key_id
     where key_id is not null and key_id <> all(${keyring.map((k) => k.id)}::text[])
     order by key_id`;
  return rows.map((r) => r.key_id);
}
