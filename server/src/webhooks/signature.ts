import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks (standardwebhooks.com): three headers, the signature an HMAC-SHA256
 * over `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the secret's bytes, in
 * base64, as `v1,<signature>`; several separated by spaces while a secret rolls over.
 */
export const HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

const PREFIX = 'whsec_';

/** `whsec_` and 32 random bytes in standard base64: what every Standard Webhooks library takes. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** One `v1,<base64>` signature of a delivery. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest();
  return `v1,${mac.toString('base64')}`;
}

/** The `webhook-signature` value: one signature per secret in force, space-separated. */
export function signatureHeader(
  secrets: string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  return secrets.map((secret) => sign(secret, id, timestamp, body)).join(' ');
}
