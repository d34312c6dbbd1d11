import type { Sql, TransactionSql } from '../db/connect';
import type { Logger } from '../logger';

export type Channel = 'sms' | 'webhook';

export interface OutboxMessage<P> {
  id: string;
  organization_id: string | null;
  shipment_id: string | null;
  payload: P;
  attempts: number;
}

/** Queued in the caller's transaction: the message exists exactly when what caused it does. */
export async function enqueue(
  tx: Sql | TransactionSql,
  channel: Channel,
  payload: object,
  refs: {
    organizationId?: string | null;
    shipmentId?: string | null;
    /** Kept for the record but never sent, for this reason (e.g. a sandbox's SMS). */
    setAside?: string;
  } = {},
): Promise<void> {
  const aside = refs.setAside ?? null;
  await tx`
    insert into outbox (channel, organization_id, shipment_id, payload, failed_at, last_error)
    values (${channel}, ${refs.organizationId ?? null}, ${refs.shipmentId ?? null}, ${tx.json(payload as never)},
            case when ${aside}::text is null then null else now() end, ${aside})`;
}

/**
 * A failed delivery that says when (or whether) to try again: `retryAfterSeconds` overrides
 * the schedule (the receiver's Retry-After); `permanent` sets the message aside at once.
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly options: { retryAfterSeconds?: number; permanent?: boolean } = {},
  ) {
    super(message);
  }
}

export interface ChannelPolicy<P> {
  channel: Channel;
  /** Throws when the message was not accepted; it is then retried. */
  deliver: (message: OutboxMessage<P>) => Promise<void>;
  /** The payload kept once delivered (e.g. an SMS without its pickup code). */
  afterDelivery?: (payload: P) => P;
  /** Attempts after which the message is set aside as failed and an alert raised. */
  maxAttempts: number;
  /** Longest wait between attempts (exponential backoff), unless `retryDelaySeconds` says. */
  maxBackoffSeconds: number;
  /** The wait after failed attempt number `attempt`, when the channel has its own schedule. */
  retryDelaySeconds?: (attempt: number) => number;
}

// A claimed message is invisible to other workers for this long; a worker that dies while
// delivering leaves it to be delivered again: at least once, never lost.
const LEASE_SECONDS = 60;
const BATCH = 20;

/** Exponential backoff from 5 s with "equal jitter": half fixed, half random. */
export function backoffSeconds(attempt: number, maxSeconds: number): number {
  const base = Math.min(5 * 2 ** (attempt - 1), maxSeconds);
  return base / 2 + Math.random() * (base / 2);
}

/**
 * Delivers what is due on one channel, safe with several server instances (`skip
 * locked`). Answers true when a full batch was taken (more may be waiting).
 */
export async function deliverDue<P>(
  sql: Sql,
  policy: ChannelPolicy<P>,
  log: Logger,
): Promise<boolean> {
  const claimed = await sql<OutboxMessage<P>[]>`
    update outbox
       set attempts = attempts + 1,
           next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS})
     where id in (
       select id from outbox
        where channel = ${policy.channel} and delivered_at is null and failed_at is null
          and next_attempt_at <= now()
        order by next_attempt_at, id
        limit ${BATCH}
        for update skip locked)
    returning id, organization_id, shipment_id, payload, attempts`;
  await Promise.all(claimed.map((message) => deliverOne(sql, policy, message, log)));
  return claimed.length === BATCH;
}

async function deliverOne<P>(
  sql: Sql,
  policy: ChannelPolicy<P>,
  message: OutboxMessage<P>,
  log: Logger,
) {
  try {
    await policy.deliver(message);
    const kept = policy.afterDelivery ? policy.afterDelivery(message.payload) : message.payload;
    // Merged, not replaced: marks another transaction set meanwhile are kept.
    await sql`
      update outbox set delivered_at = now(), last_error = null,
                        payload = payload || ${sql.json(kept as never)}
       where id = ${message.id}`;
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 500) : 'unknown error';
    const context = {
      channel: policy.channel,
      outbox_id: message.id,
      attempt: message.attempts,
      reason,
    };
    const options = error instanceof DeliveryError ? error.options : {};
    if (options.permanent) {
      log.warn(context, 'message set aside: the receiver will not take it');
      await sql`update outbox set failed_at = now(), last_error = ${reason} where id = ${message.id}`;
      return;
    }
    if (message.attempts >= policy.maxAttempts) {
      log.error(
        { ...context, alert: 'outbox_gave_up' },
        'message set aside after its last attempt',
      );
      await sql.begin(async (tx) => {
        await tx`update outbox set failed_at = now(), last_error = ${reason} where id = ${message.id}`;
        await tx`
          insert into alerts (kind, message)
          values ('outbox_gave_up', ${`${policy.channel} message ${message.id} undeliverable: ${reason}`})`;
      });
      return;
    }
    log.warn(context, 'message not delivered; will retry');
    const delay =
      options.retryAfterSeconds ??
      policy.retryDelaySeconds?.(message.attempts) ??
      backoffSeconds(message.attempts, policy.maxBackoffSeconds);
    await sql`
      update outbox
         set next_attempt_at = now() + make_interval(secs => ${delay}),
             last_error = ${reason}
       where id = ${message.id}`;
  }
}
