import type { ServerConfig } from '../config';
import type { Sql } from '../db/connect';
import { DeliveryError, type ChannelPolicy } from '../outbox/outbox';
import { RETRY_SCHEDULE_SECONDS, retryAfterSeconds } from '../webhooks/channel';
import { HEADERS, signatureHeader } from '../webhooks/signature';

/** What a trigger queues per alert event: the body is fixed at queueing, the same on every retry. */
export interface QueuedOpsWebhook {
  event_id: string;
  type: string;
  body: string;
}

/**
 * Makes the database's record of the operations webhook match this server's settings, so
 * the alert triggers queue deliveries exactly while one is configured.
 */
export async function syncOpsWebhookTarget(sql: Sql, config: ServerConfig): Promise<void> {
  if (config.opsWebhookUrl) {
    await sql`
      insert into ops_webhook_target (url) values (${config.opsWebhookUrl})
      on conflict (only_one) do update set url = excluded.url`;
  } else {
    await sql`delete from ops_webhook_target`;
  }
}

/** The merchants' schedule (≈2.8 days, 12 attempts), ±10 %. */
function retryDelaySeconds(attempt: number): number {
  const base = RETRY_SCHEDULE_SECONDS[Math.min(attempt, RETRY_SCHEDULE_SECONDS.length) - 1]!;
  return base * (0.9 + Math.random() * 0.2);
}

/**
 * Alert events to OPS_WEBHOOK_URL, signed the Standard Webhooks way with
 * OPS_WEBHOOK_SECRET exactly as merchant webhooks are (same headers, same signature),
 * retried from the outbox on the merchants' schedule.
 */
export function opsWebhookChannel(config: ServerConfig): ChannelPolicy<QueuedOpsWebhook> {
  return {
    channel: 'ops_webhook',
    maxAttempts: RETRY_SCHEDULE_SECONDS.length + 1,
    maxBackoffSeconds: Math.max(...RETRY_SCHEDULE_SECONDS),
    retryDelaySeconds,
    deliver: async (message) => {
      const { opsWebhookUrl: url, opsWebhookSecret: secret } = config;
      if (!url || !secret) {
        throw new DeliveryError('no operations webhook configured', { permanent: true });
      }
      const { event_id, body } = message.payload;
      const timestamp = Math.floor(Date.now() / 1000);
      const response = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'ParcelLocker-Operations/1.0',
          [HEADERS.id]: event_id,
          [HEADERS.timestamp]: String(timestamp),
          [HEADERS.signature]: signatureHeader([secret], event_id, timestamp, body),
        },
        body,
      });
      await response.body?.cancel();
      const { status } = response;
      if (status >= 200 && status <= 299) return;
      const wait =
        status === 429 || status === 503
          ? retryAfterSeconds(response.headers.get('retry-after'))
          : undefined;
      throw new DeliveryError(
        `operations webhook answered ${status}`,
        wait === undefined ? {} : { retryAfterSeconds: wait },
      );
    },
  };
}
