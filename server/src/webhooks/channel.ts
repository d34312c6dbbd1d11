import type { Sql } from '../db/connect';
import { DeliveryError, type ChannelPolicy } from '../outbox/outbox';
import { RefusedDestination } from './address';
import type { QueuedWebhook } from './events';
import { openSecret, UnknownSecretKey, type Keyring } from './secretKeys';
import { DEFAULT_POST_TIMEOUTS } from '../http/post';
import { postWebhook, type SendOptions } from './send';
import { HEADERS, signatureHeader } from './signature';

/**
 * Waits after each failed attempt: quick retries for a blip, then hours apart, about
 * 2.8 days in all (12 attempts) before the delivery is set aside with an alert.
 */
export const RETRY_SCHEDULE_SECONDS = [
  5, 300, 1800, 7200, 18_000, 36_000, 36_000, 36_000, 36_000, 36_000, 36_000,
];

/** ±10 % so endpoints that failed together are not all retried in the same second. */
function retryDelaySeconds(attempt: number): number {
  const base = RETRY_SCHEDULE_SECONDS[Math.min(attempt, RETRY_SCHEDULE_SECONDS.length) - 1]!;
  return base * (0.9 + Math.random() * 0.2);
}

const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

/** `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = /^\d+$/.test(value.trim())
    ? Number(value.trim())
    : (Date.parse(value) - now) / 1000;
  if (!Number.isFinite(seconds)) return undefined;
  return Math.min(Math.max(seconds, 1), MAX_RETRY_AFTER_SECONDS);
}

interface Target {
  url: string;
  /** Encrypted, under the key named beside it (secretKeys.ts). */
  secret: string;
  secret_key_id: string | null;
  previous_secret: string | null;
  previous_secret_key_id: string | null;
  disabled_at: Date | null;
  body: string;
}

/** Each delivery's endpoint and event body, for a whole batch in one query. */
async function targetsOf(sql: Sql, deliveries: QueuedWebhook[]): Promise<Map<string, Target>> {
  const wanted = deliveries.filter((d) => d.endpoint_id !== null);
  if (wanted.length === 0) return new Map();
  const rows = await sql<(Target & { key: string })[]>`
    select x.endpoint_id || ' ' || x.event_id as key,
           w.url, w.secret, w.secret_key_id, w.disabled_at, e.body,
           case when w.previous_secret_until > now() then w.previous_secret end as previous_secret,
           w.previous_secret_key_id
      from unnest(${wanted.map((d) => d.endpoint_id!)}::uuid[],
                  ${wanted.map((d) => d.event_id)}::uuid[]) as x(endpoint_id, event_id)
      join webhook_endpoints w on w.id = x.endpoint_id
      join events e on e.id = x.event_id`;
  return new Map(rows.map(({ key, ...target }) => [key, target]));
}

/** The endpoint told us it is gone: stop sending to it until the merchant enables it. */
async function disableEndpoint(
  sql: Sql,
  endpointId: string,
  reason: string,
  /** The delivery that heard it: the outbox records its own failure, with this reason. */
  deliveryId: string,
): Promise<void> {
  await sql.begin(async (tx) => {
    const [endpoint] = await tx<{ organization_id: string; url: string }[]>`
      update webhook_endpoints set disabled_at = now(), disabled_reason = ${reason}
       where id = ${endpointId} and disabled_at is null
      returning organization_id, url`;
    if (!endpoint) return;
    await tx`
      update outbox set failed_at = now(), last_error = 'endpoint disabled'
       where channel = 'webhook' and payload->>'endpoint_id' = ${endpointId}
         and delivered_at is null and failed_at is null and id <> ${deliveryId}`;
    await tx`
      insert into alerts (kind, message)
      values ('webhook_endpoint_disabled',
              ${`endpoint ${endpointId} (${endpoint.url}) of organization ${endpoint.organization_id}: ${reason}`})`;
  });
}

/**
 * Delivers one event to one endpoint the Standard Webhooks way, signed with the current
 * secret and, while a rotation rolls over, the previous one too. Any answer but 2xx (a
 * redirect included) is a failure and is retried on the schedule; 429 and 503 are retried
 * after their Retry-After; 410 Gone disables the endpoint. Only to an address the
 * destination policy allows (address.ts): a refused one is a failure like any other,
 * retried on the schedule, and nothing is sent to it.
 */
export function webhookChannel(
  sql: Sql,
  options: Pick<SendOptions, 'destination'> & Partial<SendOptions> & { keyring: Keyring },
): ChannelPolicy<QueuedWebhook, Map<string, Target>> {
  const { keyring, ...sendOptions } = options;
  const send: SendOptions = { ...DEFAULT_POST_TIMEOUTS, ...sendOptions };
  /** The secrets in force, opened; a key the keyring lacks fails the attempt, retried. */
  const secretsOf = (endpointId: string, target: Target): string[] => {
    try {
      return [
        openSecret(keyring, endpointId, { ciphertext: target.secret, keyId: target.secret_key_id }),
        ...(target.previous_secret
          ? [
              openSecret(keyring, endpointId, {
                ciphertext: target.previous_secret,
                keyId: target.previous_secret_key_id,
              }),
            ]
          : []),
      ];
    } catch (error) {
      if (error instanceof UnknownSecretKey) throw new DeliveryError(error.message);
      throw error;
    }
  };
  return {
    channel: 'webhook',
    maxAttempts: RETRY_SCHEDULE_SECONDS.length + 1,
    maxBackoffSeconds: Math.max(...RETRY_SCHEDULE_SECONDS),
    retryDelaySeconds,
    prepare: (messages) =>
      targetsOf(
        sql,
        messages.map((m) => m.payload),
      ),
    deliver: async (message, targets) => {
      const { event_id, endpoint_id } = message.payload;
      const target = endpoint_id ? targets.get(`${endpoint_id} ${event_id}`) : undefined;
      if (!target) throw new DeliveryError('endpoint deleted', { permanent: true });
      if (target.disabled_at) throw new DeliveryError('endpoint disabled', { permanent: true });
      const timestamp = Math.floor(Date.now() / 1000);
      const secrets = secretsOf(endpoint_id!, target);
      let answer;
      try {
        answer = await postWebhook(
          target.url,
          {
            'content-type': 'application/json',
            'user-agent': 'ParcelLocker-Webhooks/1.0',
            [HEADERS.id]: event_id,
            [HEADERS.timestamp]: String(timestamp),
            [HEADERS.signature]: signatureHeader(secrets, event_id, timestamp, target.body),
          },
          target.body,
          send,
        );
      } catch (error) {
        if (error instanceof RefusedDestination)
          throw new DeliveryError(`address refused: ${error.message}`);
        throw error;
      }
      const { status } = answer;
      if (status >= 200 && status <= 299) return;
      const reason = `endpoint answered ${status}`;
      if (status === 410) {
        await disableEndpoint(sql, endpoint_id!, reason, message.id);
        throw new DeliveryError(reason, { permanent: true });
      }
      const wait =
        status === 429 || status === 503 ? retryAfterSeconds(answer.retryAfter ?? null) : undefined;
      throw new DeliveryError(reason, wait === undefined ? {} : { retryAfterSeconds: wait });
    },
  };
}
