import { hasUnstorableCharacters } from '@locker/shared';
import { randomUUID } from 'node:crypto';
import type { Sql } from '../db/connect';
import { destinationProblem, type DestinationPolicy } from './address';
import { sealSecret, type Keyring } from './secretKeys';
import { newWebhookSecret } from './signature';

/** How long the old secret keeps signing after a rotation, unless the caller says. */
export const DEFAULT_ROLLOVER_HOURS = 24;

export interface EndpointView {
  id: string;
  url: string;
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  created_at: string;
}

interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  created_at: Date;
}

/** What a merchant sees of an endpoint: never its secret after creation or rotation. */
function present(row: EndpointRow): EndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    status: row.disabled_at ? 'disabled' : 'enabled',
    disabled_reason: row.disabled_reason,
    created_at: row.created_at.toISOString(),
  };
}

const COLUMNS = 'id, url, description, disabled_at, disabled_reason, created_at';

/** Whether `url` is one a webhook can be sent to: absolute http(s), no credentials. */
export function webhookUrlProblem(url: string): string | undefined {
  if (hasUnstorableCharacters(url)) return 'must not contain U+0000 or unpaired UTF-16 surrogates';
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol))
    return 'must be an absolute http(s) URL';
  if (parsed.username || parsed.password) return 'must not carry credentials';
  return undefined;
}

/** `webhookUrlProblem`, then whether its host is an address webhooks may go to. */
export async function endpointUrlProblem(
  url: string,
  destination: DestinationPolicy,
): Promise<string | undefined> {
  return webhookUrlProblem(url) ?? (await destinationProblem(new URL(url), destination));
}

/** A new endpoint; its secret is answered here and stored only encrypted (secretKeys.ts). */
export async function createEndpoint(
  sql: Sql,
  organizationId: string,
  input: { url: string; description?: string | undefined },
  keyring: Keyring,
): Promise<EndpointView & { secret: string }> {
  const id = randomUUID();
  const secret = newWebhookSecret();
  const sealed = sealSecret(keyring, id, secret);
  const [row] = await sql<EndpointRow[]>`
    insert into webhook_endpoints (id, organization_id, url, description, secret, secret_key_id)
    values (${id}, ${organizationId}, ${input.url}, ${input.description ?? null},
            ${sealed.ciphertext}, ${sealed.keyId})
    returning ${sql.unsafe(COLUMNS)}`;
  return { ...present(row!), secret };
}

export async function listEndpoints(sql: Sql, organizationId: string): Promise<EndpointView[]> {
  const rows = await sql<EndpointRow[]>`
    select ${sql.unsafe(COLUMNS)} from webhook_endpoints
     where organization_id = ${organizationId} order by created_at, id`;
  return rows.map(present);
}

/**
 * A new secret; the old one keeps signing beside it for `rolloverHours` (0: stops at
 * once), so a receiver can switch without dropping a delivery.
 */
export async function rotateEndpointSecret(
  sql: Sql,
  organizationId: string,
  endpointId: string,
  rolloverHours: number,
  keyring: Keyring,
): Promise<{ id: string; secret: string; previous_secret_valid_until: string | null } | undefined> {
  const secret = newWebhookSecret();
  const sealed = sealSecret(keyring, endpointId, secret);
  // The old ciphertext moves with its key id: it opens as before.
  const [row] = await sql<{ id: string; previous_secret_until: Date | null }[]>`
    update webhook_endpoints
       set previous_secret = case when ${rolloverHours} > 0 then secret end,
           previous_secret_key_id = case when ${rolloverHours} > 0 then secret_key_id end,
           previous_secret_until = case when ${rolloverHours} > 0
                                        then now() + make_interval(hours => ${rolloverHours}) end,
           secret = ${sealed.ciphertext}, secret_key_id = ${sealed.keyId}
     where id = ${endpointId} and organization_id = ${organizationId}
    returning id, previous_secret_until`;
  if (!row) return undefined;
  return {
    id: row.id,
    secret,
    previous_secret_valid_until: row.previous_secret_until?.toISOString() ?? null,
  };
}

/** Sending resumes with events recorded from now on (missed ones: the events API). */
export async function enableEndpoint(
  sql: Sql,
  organizationId: string,
  endpointId: string,
): Promise<EndpointView | undefined> {
  const [row] = await sql<EndpointRow[]>`
    update webhook_endpoints set disabled_at = null, disabled_reason = null
     where id = ${endpointId} and organization_id = ${organizationId}
    returning ${sql.unsafe(COLUMNS)}`;
  return row ? present(row) : undefined;
}

/** Deleted with its pending deliveries; the organization's events stay. */
export async function deleteEndpoint(
  sql: Sql,
  organizationId: string,
  endpointId: string,
): Promise<boolean> {
  return sql.begin(async (tx) => {
    const [row] = await tx`
      delete from webhook_endpoints
       where id = ${endpointId} and organization_id = ${organizationId} returning id`;
    if (!row) return false;
    await tx`
      update outbox set failed_at = now(), last_error = 'endpoint deleted'
       where channel = 'webhook' and payload->>'endpoint_id' = ${endpointId}
         and delivered_at is null and failed_at is null`;
    return true;
  });
}
