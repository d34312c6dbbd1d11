import type { Sql } from '../db/connect';
import { softCommit, softCommitRead } from '../db/softCommit';
import type { Logger } from '../logger';
import { startGathering, type Poller } from '../ops/poller';
import {
  deliverOne,
  LEASE_SECONDS,
  recordOutcomes,
  type ChannelPolicy,
  type Outcome,
  type OutboxMessage,
} from '../outbox/outbox';
import type { QueuedWebhook } from './events';

export interface DispatchLimits {
  /** Deliveries in flight to one endpoint from this instance. */
  perEndpoint: number;
  /** Deliveries in flight from this instance in all. */
  inFlight: number;
  /** How often due deliveries are looked for without a nudge. */
  pollMs: number;
  /**
   * Claims begin at most this often (a nudge or a freed slot meanwhile is claimed with
   * the next): under load every commit nudges, and a claim costs PostgreSQL about the
   * same however much it takes (issue 28). A claim that filled every free slot goes on at
   * once when a slot frees.
   */
  gatherMs: number;
}

// Sockets waiting on receivers, not threads: many can be in flight, so endpoints that hang
// (10 s at most each) fill the slots only if there are more than a hundred of them.
export const DEFAULT_DISPATCH_LIMITS: DispatchLimits = {
  perEndpoint: 2,
  inFlight: 256,
  pollMs: 1000,
  gatherMs: 50,
};

/**
 * Webhook deliveries, fair across endpoints. The outbox's batches (claim 50 oldest, wait
 * for the slowest) let one merchant whose endpoints hang hold everybody's webhooks: ten
 * endpoints that never answer and a flood of redeliveries filled every batch for minutes.
 * Here each delivery runs on its own: a slot freed is claimed again at once, each endpoint
 * has at most `perEndpoint` deliveries in flight, and a claim takes every endpoint's
 * oldest due delivery before any endpoint's second (round robin), so a busy or hanging
 * endpoint waits behind its own deliveries only. Outcomes are written as they come, those
 * that come together in one go. Retries, leases and outcomes are the outbox's own.
 */
export function startWebhookDispatcher<C>(
  sql: Sql,
  policy: ChannelPolicy<QueuedWebhook, C>,
  log: Logger,
  limits: DispatchLimits = DEFAULT_DISPATCH_LIMITS,
): Poller {
  /** Deliveries in flight per endpoint (`''`: a delivery without one). */
  const busy = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  let claiming: Promise<void> | undefined;
  let again = false;
  /** A claim asked for meanwhile that is not to be gathered (a freed slot, below). */
  let againNow = false;
  /** The last claim took all it could: more may be due behind it. */
  let saturated = false;
  let stopped = false;
  const outcomes: Outcome[] = [];
  let writing: Promise<void> | undefined;
  const gather = startGathering(limits.gatherMs);
  const gatherWrites = startGathering(limits.gatherMs);

  const endpointOf = (m: OutboxMessage<QueuedWebhook>) => m.payload.endpoint_id ?? '';

  async function claimOnce(): Promise<void> {
    const free = limits.inFlight - inFlight.size;
    if (free <= 0) {
      saturated = true;
      return;
    }
    const busyEndpoints = [...busy.keys()];
    // Ranked per endpoint, counting what is already in flight to it, and picked by rank;
    // only then locked, by id, each row checked again to be still due: one another
    // instance claimed meanwhile is left to it. (Joining the ranking to the table instead
    // let the planner, without statistics on a fresh outbox, re-rank per row: a second
    // per claim over 1,500 due rows.)
    // Committed without waiting for the disk (softCommit): the outcome's commit is durable.
    const claimed = await sql<OutboxMessage<QueuedWebhook>[]>`
      with ${softCommit(sql)},
      due as (
        select id, next_attempt_at, coalesce(payload->>'endpoint_id', '') as endpoint
          from outbox
         where channel = 'webhook' and delivered_at is null and failed_at is null
           and next_attempt_at <= now()),
      ranked as (
        select d.id, d.next_attempt_at,
               row_number() over (partition by d.endpoint order by d.next_attempt_at, d.id)
                 + coalesce(b.n, 0) as rank
          from due d
          left join unnest(${busyEndpoints}::text[], ${busyEndpoints.map((e) => busy.get(e)!)}::int[])
                 as b(endpoint, n) on b.endpoint = d.endpoint),
      picked as (
        select id from ranked
         where rank <= ${limits.perEndpoint}
         order by rank, next_attempt_at, id
         limit ${free})
      update outbox o
         set attempts = o.attempts + 1,
             next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS})
       -- The locked ids as one array, read once: as \`o.id in (…)\`, a generic plan made
       -- while the outbox was vacuumed empty joined it row by row, the locking scan again
       -- for every row: 173 ms a claim at 700 rows, quadratic in the table (issue 28).
       where o.id = any(array(
         select id from outbox
          where id = any(array(select id from picked))
            and delivered_at is null and failed_at is null and next_attempt_at <= now()
            for update skip locked))
         and ${softCommitRead(sql)}
      returning o.id, o.organization_id, o.shipment_id, o.payload, o.attempts`;
    saturated = claimed.length === free;
    if (claimed.length === 0) return;
    const prepared = (policy.prepare ? await policy.prepare(claimed) : undefined) as C;
    for (const message of claimed) start(message, prepared);
  }

  function start(message: OutboxMessage<QueuedWebhook>, prepared: C): void {
    const endpoint = endpointOf(message);
    busy.set(endpoint, (busy.get(endpoint) ?? 0) + 1);
    const delivery = deliverOne(policy, message, prepared, log).then(
      (outcome) => {
        release();
        write(outcome);
      },
      (error: unknown) => {
        // deliverOne answers every failure as an outcome; this is a bug, logged. The
        // lease brings the message back.
        release();
        log.error({ err: error, outbox_id: message.id }, 'webhook delivery failed unexpectedly');
      },
    );
    // A freed slot is claimed again at once where work may be waiting for it: behind a
    // full claim or behind this endpoint's cap (not gathered: a busy endpoint's
    // deliveries follow each other without a pause). Behind a claim running now (it
    // counted this delivery as in flight when it read, so it leaves this slot empty) it
    // is claimed again when that one ends. Anything else comes with a nudge (a commit
    // that queued it) or the next poll (a retry falling due), gathered.
    const release = () => {
      const held = busy.get(endpoint)!;
      if (held > 1) busy.set(endpoint, held - 1);
      else busy.delete(endpoint);
      inFlight.delete(delivery);
      if (saturated || held >= limits.perEndpoint) claim(true);
      else if (claiming) claim();
    };
    inFlight.add(delivery);
  }

  function write(outcome: Outcome): void {
    outcomes.push(outcome);
    writeOutcomes();
  }

  /**
   * Outcomes are written together, at most once per `gatherMs` (as claims are): a claim's
   * deliveries end at about the same time, and each write was a statement.
   */
  function writeOutcomes(now = false): void {
    if (writing) return;
    if (!now && gatherWrites.defer(() => writeOutcomes(true))) return;
    gatherWrites.began();
    writing = (async () => {
      try {
        await recordOutcomes(sql, outcomes.splice(0));
      } catch (error) {
        // Unwritten outcomes come back when their lease ends: at least once, never lost.
        log.error({ err: error }, 'webhook outcomes not written; the lease brings them back');
      } finally {
        writing = undefined;
      }
      if (outcomes.length) writeOutcomes(stopped);
    })();
  }

  function claim(now = false): void {
    if (stopped) return;
    if (claiming) {
      again = true;
      againNow ||= now;
      return;
    }
    if (!now && gather.defer(() => claim(true))) return;
    gather.began();
    claiming = (async () => {
      try {
        again = false;
        againNow = false;
        await claimOnce();
      } catch (error) {
        log.error({ err: error, poller: 'webhooks' }, 'background work failed; will retry');
      } finally {
        claiming = undefined;
      }
      if (again) claim(againNow);
    })();
  }

  /** Until nothing is being claimed, delivered or written. */
  async function settled(): Promise<void> {
    for (;;) {
      if (claiming) await claiming;
      else if (inFlight.size) await Promise.all(inFlight);
      else if (writing) await writing;
      else if (outcomes.length) writeOutcomes(true);
      else return;
    }
  }

  const timer = setInterval(claim, limits.pollMs);
  timer.unref();
  claim();
  return {
    nudge: claim,
    runNow: async () => {
      // A claim already going may have read before the caller's commit: let it end first.
      while (claiming) await claiming;
      claim(true);
      await settled();
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      gather.cancel();
      gatherWrites.cancel();
      await settled();
    },
  };
}
