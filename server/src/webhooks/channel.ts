import type { Sql } from '../db/connect';
import type { ChannelPolicy } from '../outbox/outbox';
import type { QueuedWebhook } from './events';
import { SIGNATURE_HEADER, sign } from './signature';

/**
 * Delivers webhooks to the organization's current URL, signed with its current secret.
 * Any answer but 2xx (a redirect included) is a failure and is retried with backoff for
 * about three days before the message is set aside with an alert.
 */
export function webhookChannel(sql: Sql): ChannelPolicy<QueuedWebhook> {
  return {
    channel: 'webhook',
    maxAttempts: 18,
    maxBackoffSeconds: 6 * 3600,
    deliver: async (message) => {
      const [org] = await sql<{ webhook_url: string | null; webhook_secret: string | null }[]>`
        select webhook_url, webhook_secret from organizations where id = ${message.organization_id}`;
      if (!org?.webhook_url || !org.webhook_secret)
        throw new Error('the organization has no webhook URL');
      const { event_id, type, body } = message.payload;
      const timestamp = Math.floor(Date.now() / 1000);
      const response = await fetch(org.webhook_url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'ParcelLocker-Webhooks/1.0',
          'X-Locker-Event-Id': event_id,
          'X-Locker-Event-Type': type,
          'X-Locker-Timestamp': String(timestamp),
          [SIGNATURE_HEADER]: sign(org.webhook_secret, timestamp, body),
        },
        body,
      });
      await response.body?.cancel();
      if (response.status < 200 || response.status > 299)
        throw new Error(`endpoint answered ${response.status}`);
    },
  };
}
