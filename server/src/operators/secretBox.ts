import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { ServerConfig } from '../config';

/**
 * TOTP secrets must be readable to check a code, so they are kept encrypted
 * (AES-256-GCM) with a key from OPERATOR_SECRET_KEY, or derived from PICKUP_CODE_SECRET
 * when unset: a database dump alone reveals none.
 */
function keyOf(config: Pick<ServerConfig, 'operatorSecretKey' | 'pickupCodeSecret'>): Buffer {
  const material = config.operatorSecretKey ?? config.pickupCodeSecret;
  return Buffer.from(hkdfSync('sha256', material, 'parcel-locker', 'operator totp secrets', 32));
}

export type SecretConfig = Pick<ServerConfig, 'operatorSecretKey' | 'pickupCodeSecret'>;

export function seal(config: SecretConfig, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(config), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

export function open(config: SecretConfig, sealed: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined)
    throw new Error('unreadable sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(config), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([
    decipher.update(Buffer.from(body, 'base64url')),
    decipher.final(),
  ]).toString('utf8');
}
