import type { PendingQuery, Row } from 'postgres';
import type { Sql, TransactionSql } from '../db/connect';
import { softCommit, softCommitRead } from '../db/softCommit';
import type { Logger } from '../logger';

export type Channel = 'sms' | 'webhook' | 'ops_webhook';

export interface OutboxMessage<P> {
  id: string;
  organization_id: string | null;
  shipment_id: string | null;
  payload: P;
  attempts: number;
}

/**
 * The one statement that writes to the outbox, as a query to run or to use as a CTE's
 * body. `messages` selects one row per message with the columns `organization_id` (uuid
 * or null), `shipment_id` (uuid or null), `payload` (jsonb) and `set_aside` (text: why the
 * message is kept for the record but never sent, e.g. a sandbox's SMS; null: it is sent).
 * Messages are numbered in the order `messages` gives them, which is the order they leave.
 */
export function insertMessages(
  db: Sql | TransactionSql,
  channel: Channel,
  messages: PendingQuery<Row[]>,
) {
  return db`
    insert into outbox (channel, organization_id, shipment_id, payload, failed_at, last_error)
    select ${channel}, m.organization_id, m.shipment_id, m.payload,
           case when m.set_aside is null then null else now() end, m.set_aside
      from (${messages}) m`;
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
  await insertMessages(
    tx,
    channel,
    tx`select ${refs.organizationId ?? null}::uuid as organization_id,
              ${refs.shipmentId ?? null}::uuid as shipment_id,
              ${tx.json(payload as never)}::jsonb as payload,
              ${refs.setAside ?? null}::text as set_aside`,
  );
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

export interface ChannelPolicy<P, C = undefined> {
  channel: Channel;
  /**
   * What delivering the claimed batch needs from the database, read once for the batch
   * (e.g. each webhook's endpoint and body) rather than once per message.
   */
  prepare?: (messages: OutboxMessage<P>[]) => Promise<C>;
  /** Throws when the message was not accepted; it is then retried. */
  deliver: (message: OutboxMessage<P>, prepared: C) => Promise<void>;
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
export const LEASE_SECONDS = 60;
const BATCH = 50;

/** Exponential backoff from 5 s with "equal jitter": half fixed, half random. */
export function backoffSeconds(attempt: number, maxSeconds: number): number {
  const base = Math.min(5 * 2 ** (attempt - 1), maxSeconds);
  return base / 2 + Math.random() * (base / 2);
}

/** How one delivery ended, to be written with the rest of its batch. */
export type Outcome =
  | {
      kind: 'delivered';
      id: string;
      /** The payload as kept (merged into the row's), or null: as it is. */
      kept: unknown;
      at: number;
    }
  | { kind: 'retry'; id: string; delaySeconds: number; reason: string }
  | { kind: 'set_aside'; id: string; reason: string }
  | { kind: 'gave_up'; id: string; reason: string; alert: string };

/**
 * Delivers what is due on one channel, safe with several server instances (`skip
 * locked`): one statement claims a batch, one reads what the batch needs (`prepare`), the
 * deliveries run at once, and their outcomes are written together, one statement per
 * kind of outcome. Answers true when a full batch was taken (more may be waiting).
 */
export async function deliverDue<P, C>(
  sql: Sql,
  policy: ChannelPolicy<P, C>,
  log: Logger,
): Promise<boolean> {
  // Committed without waiting for the disk (softCommit): the outcome's commit is durable.
  const claimed = await sql<OutboxMessage<P>[]>`
    with ${softCommit(sql)}
    update outbox
       set attempts = attempts + 1,
           next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS})
     -- One array, read once, whatever the planner thinks of the table's size (as
     -- \`id in (…)\` it may join row by row: see the webhook dispatcher's claim).
     where id = any(array(
       select id from outbox
        where channel = ${policy.channel} and delivered_at is null and failed_at is null
          and next_attempt_at <= now()
        order by next_attempt_at, id
        limit ${BATCH}
        for update skip locked))
       and ${softCommitRead(sql)}
    returning id, organization_id, shipment_id, payload, attempts`;
  if (claimed.length === 0) return false;
  const prepared = (policy.prepare ? await policy.prepare(claimed) : undefined) as C;
  const outcomes = await Promise.all(
    claimed.map((message) => deliverOne(policy, message, prepared, log)),
  );
  await recordOutcomes(sql, outcomes);
  return claimed.length === BATCH;
}

export async function deliverOne<P, C>(
  policy: ChannelPolicy<P, C>,
  message: OutboxMessage<P>,
  prepared: C,
  log: Logger,
): Promise<Outcome> {
  try {
    await policy.deliver(message, prepared);
    // Only a policy that changes the payload sends it back (issue 28: a webhook's whole
    // body went back to be written over itself).
    const kept = policy.afterDelivery ? policy.afterDelivery(message.payload) : null;
    return { kind: 'delivered', id: message.id, kept, at: Date.now() };
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
      return { kind: 'set_aside', id: message.id, reason };
    }
    if (message.attempts >= policy.maxAttempts) {
      log.error(
        { ...context, alert: 'outbox_gave_up' },
        'message set aside after its last attempt',
      );
      const alert = `${policy.channel} message ${message.id} undeliverable: ${reason}`;
      return { kind: 'gave_up', id: message.id, reason, alert };
    }
    log.warn(context, 'message not delivered; will retry');
    const delaySeconds =
      options.retryAfterSeconds ??
      policy.retryDelaySeconds?.(message.attempts) ??
      backoffSeconds(message.attempts, policy.maxBackoffSeconds);
    return { kind: 'retry', id: message.id, delaySeconds, reason };
  }
}

/** Writes a batch's outcomes: one statement per kind present, the give-ups with their alerts. */
export async function recordOutcomes(sql: Sql, outcomes: Outcome[]): Promise<void> {
  const of = <K extends Outcome['kind']>(kind: K) =>
    outcomes.filter((o): o is Extract<Outcome, { kind: K }> => o.kind === kind);
  const delivered = of('delivered');
  const retries = of('retry');
  const asides = [...of('set_aside'), ...of('gave_up')];
  const alerts = of('gave_up');
  const now = Date.now();
  const writes: Promise<unknown>[] = [];
  // Merged, not replaced: marks another transaction set meanwhile are kept. The time is
  // when each was accepted, by the database's clock.
  if (delivered.length)
    writes.push(sql`
      update outbox o
         set delivered_at = now() - make_interval(secs => d.ago), last_error = null,
             payload = case when d.kept is null then o.payload else o.payload || d.kept::jsonb end
        from unnest(${delivered.map((d) => d.id)}::bigint[],
                    ${delivered.map((d) => (d.kept === null ? null : JSON.stringify(d.kept)))}::text[],
                    ${delivered.map((d) => (now - d.at) / 1000)}::float8[]) as d(id, kept, ago)
       where o.id = d.id`);
  if (retries.length)
    writes.push(sql`
      update outbox o
         set next_attempt_at = now() + make_interval(secs => r.delay), last_error = r.reason
        from unnest(${retries.map((r) => r.id)}::bigint[],
                    ${retries.map((r) => r.delaySeconds)}::float8[],
                    ${retries.map((r) => r.reason)}::text[]) as r(id, delay, reason)
       where o.id = r.id`);
  if (asides.length)
    writes.push(
      sql.begin(async (tx) => {
        await tx`
          update outbox o set failed_at = now(), last_error = f.reason
            from unnest(${asides.map((f) => f.id)}::bigint[],
                        ${asides.map((f) => f.reason)}::text[]) as f(id, reason)
           where o.id = f.id`;
        if (alerts.length)
          await tx`
            insert into alerts (kind, message)
            select 'outbox_gave_up', m from unnest(${alerts.map((a) => a.alert)}::text[]) as m`;
      }),
    );
  await Promise.all(writes);
}
