import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../test/databases';
import { waitFor } from '../../test/harness';
import { connect, type Sql } from '../db/connect';
import { createLogger } from '../logger';
import type { ChannelPolicy, OutboxMessage } from '../outbox/outbox';
import { startWebhookDispatcher } from './dispatcher';
import type { QueuedWebhook } from './events';

let sql: Sql;
beforeAll(async () => {
  // No server on this database: the dispatcher under test is the only one claiming.
  sql = connect(await freshDatabaseUrl(), { max: 4 });
});
afterAll(() => sql.end());

/**
 * A dispatcher on `db` with the test's deliveries (and claim hook), two deliveries in
 * flight per endpoint, claims gathered for `gatherMs`, and no poll: only nudges claim.
 */
function dispatcherOf(
  db: Sql,
  hooks: Pick<ChannelPolicy<QueuedWebhook, undefined>, 'deliver' | 'prepare'>,
  gatherMs = 50,
) {
  return startWebhookDispatcher(
    db,
    { channel: 'webhook', maxAttempts: 3, maxBackoffSeconds: 60, ...hooks },
    createLogger('silent'),
    { perEndpoint: 2, inFlight: 100, pollMs: 60_000, gatherMs },
  );
}

describe('the webhook dispatcher', () => {
  it('keeps at most two deliveries in flight per endpoint, takes every endpoint’s oldest first, and fills a freed slot at once', async () => {
    // Ten due deliveries to each of three endpoints, queued endpoint after endpoint.
    await sql`
      insert into outbox (channel, payload)
      select 'webhook', jsonb_build_object('event_id', gen_random_uuid(), 'endpoint_id', e, 'type', 'x')
        from unnest(array['a', 'b', 'c']) e, generate_series(1, 10) n
       order by e, n`;
    const started: string[] = [];
    const inFlight = new Map<string, number>();
    let most = 0;
    const waiting: (() => void)[] = [];
    const dispatcher = dispatcherOf(sql, {
      // Each delivery hangs until the test lets one go.
      deliver: async (message: OutboxMessage<QueuedWebhook>) => {
        const endpoint = message.payload.endpoint_id!;
        started.push(endpoint);
        inFlight.set(endpoint, (inFlight.get(endpoint) ?? 0) + 1);
        most = Math.max(most, inFlight.get(endpoint)!);
        await new Promise<void>((resolve) => waiting.push(resolve));
        inFlight.set(endpoint, inFlight.get(endpoint)! - 1);
      },
    });
    try {
      await waitFor(() => (started.length === 6 ? true : undefined));
      // Every endpoint's two, though a's ten were queued first.
      expect([...started].sort()).toEqual(['a', 'a', 'b', 'b', 'c', 'c']);
      // One finishes: its endpoint's next starts without waiting for a poll.
      waiting.shift()!();
      await waitFor(() => (started.length === 7 ? true : undefined));
      expect(started[6]).toBe(started[0]);
      // Then all of them, two at a time per endpoint.
      const until = Date.now() + 10_000;
      while (started.length < 30 || waiting.length) {
        if (Date.now() > until) throw new Error(`only ${started.length} of 30 started`);
        waiting.shift()?.();
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(most).toBe(2);
      await dispatcher.runNow();
      const [left] = await sql<{ n: number }[]>`
        select count(*)::int as n from outbox where channel = 'webhook' and delivered_at is null`;
      expect(left!.n).toBe(0);
    } finally {
      for (const release of waiting) release();
      await dispatcher.stop();
    }
  });
  it('fills a slot freed while a claim is running, though that claim counted it as busy', async () => {
    // One endpoint, four due. The first claim starts two; one ends and a claim begins,
    // reading the endpoint as one busy; before it ends the other ends too. That claim
    // starts one, and the freed slot must be claimed again at once, not at the next poll.
    await sql`
      insert into outbox (channel, payload)
      select 'webhook', jsonb_build_object('event_id', gen_random_uuid(), 'endpoint_id', 'd', 'type', 'x')
        from generate_series(1, 4)`;
    const waiting: (() => void)[] = [];
    let started = 0;
    let claims = 0;
    let letClaimGo = () => {};
    const holdClaim = new Promise<void>((resolve) => (letClaimGo = resolve));
    const dispatcher = dispatcherOf(sql, {
      // The second claim is held here, after its read, until the test lets it go.
      prepare: async () => {
        claims += 1;
        if (claims === 2) await holdClaim;
        return undefined;
      },
      deliver: async () => {
        started += 1;
        await new Promise<void>((resolve) => waiting.push(resolve));
      },
    });
    try {
      await waitFor(() => (started === 2 ? true : undefined));
      waiting.shift()!();
      await waitFor(() => (claims === 2 ? true : undefined));
      waiting.shift()!();
      await new Promise((resolve) => setTimeout(resolve, 50));
      letClaimGo();
      // The held claim starts the third; the slot freed meanwhile takes the fourth.
      await waitFor(() => (started === 4 ? true : undefined), 5_000);
      expect(waiting).toHaveLength(2);
    } finally {
      letClaimGo();
      for (const release of waiting) release();
      await dispatcher.stop();
    }
  });

  it('claims in one pass over the outbox, with a plan made while it was empty', async () => {
    // Its own database on one connection, so its table counters and its prepared
    // statements are this test's alone.
    const own = connect(await freshDatabaseUrl(), { max: 1 });
    const delivered: string[] = [];
    const dispatcher = dispatcherOf(own, {
      deliver: (message: OutboxMessage<QueuedWebhook>) => {
        delivered.push(message.id);
        return Promise.resolve();
      },
    });
    try {
      // Vacuumed while empty (a new deployment; the peak bench after its seed), so the
      // planner takes it for empty; never analysed again here.
      await own`alter table outbox set (autovacuum_enabled = false)`;
      await own`vacuum analyze outbox`;
      // The first claims: after five, PostgreSQL keeps one generic plan for the statement,
      // made for that empty table, until the table is analysed again.
      for (let i = 0; i < 8; i++) await dispatcher.runNow();
      // A morning's deliveries done, and five due.
      await own`
        insert into outbox (channel, payload, delivered_at)
        select 'webhook', jsonb_build_object('endpoint_id', 'e' || n % 7, 'type', 'x'),
               case when n > 5 then now() end
          from generate_series(1, 1500) n`;
      const read = async () => {
        await own`select pg_stat_force_next_flush()`;
        await own`select pg_stat_clear_snapshot()`;
        const [row] = await own<{ n: string }[]>`
          select (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::text as n
            from pg_stat_user_tables where relname = 'outbox'`;
        return Number(row!.n);
      };
      const before = await read();
      await dispatcher.runNow();
      expect(delivered).toHaveLength(5);
      // Joined row by row, the locking scan ran again for every row: 2.2 million rows read
      // here (4,500 now).
      expect((await read()) - before).toBeLessThan(20 * 1500);
    } finally {
      await dispatcher.stop();
      await own.end();
    }
  });

  it('gathers the claims nudged by commits in quick succession, and delivers each', async () => {
    // Its own database, so no other test's rows are due here.
    const own = connect(await freshDatabaseUrl(), { max: 2 });
    let claims = 0;
    const delivered: string[] = [];
    const dispatcher = dispatcherOf(
      own,
      {
        // Called once for each claim that took something.
        prepare: () => {
          claims += 1;
          return Promise.resolve(undefined);
        },
        deliver: (message: OutboxMessage<QueuedWebhook>) => {
          delivered.push(message.id);
          return Promise.resolve();
        },
      },
      400,
    );
    try {
      // Ten commits a few milliseconds apart, each queueing one webhook to its own
      // endpoint and nudging, as a busy minute's shipments do.
      for (let i = 0; i < 10; i++) {
        await own`
          insert into outbox (channel, payload)
          values ('webhook', jsonb_build_object('endpoint_id', ${`g${i}`}::text, 'type', 'x'))`;
        dispatcher.nudge();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await waitFor(() => (delivered.length === 10 ? true : undefined), 5_000);
      // The first nudge claims at once; the rest, within its window, in one claim more
      // (without the window each nudge after a claim's end claimed again: up to ten).
      expect(claims).toBeLessThanOrEqual(3);
      expect(new Set(delivered).size).toBe(10);
    } finally {
      await dispatcher.stop();
      await own.end();
    }
  });

  it('writes the outcomes of deliveries that end a few milliseconds apart together', async () => {
    const own = connect(await freshDatabaseUrl(), { max: 2 });
    await own`
      insert into outbox (channel, payload)
      select 'webhook', jsonb_build_object('endpoint_id', 'w' || n, 'type', 'x')
        from generate_series(1, 10) n`;
    let ended = 0;
    const dispatcher = dispatcherOf(
      own,
      {
        // The ten end 5 ms apart, as a claim's deliveries to different receivers do.
        deliver: async () => {
          const order = ended++;
          await new Promise((resolve) => setTimeout(resolve, 5 * order));
        },
      },
      400,
    );
    try {
      await dispatcher.runNow();
      // Rows one statement updated share its transaction id.
      const rows = await own<{ writes: number; delivered: number }[]>`
        select count(distinct xmin::text)::int as writes, count(delivered_at)::int as delivered
          from outbox where channel = 'webhook'`;
      expect(rows[0]!.delivered).toBe(10);
      // Written as they came, the first alone and the rest behind it: several writes.
      expect(rows[0]!.writes).toBeLessThanOrEqual(2);
    } finally {
      await dispatcher.stop();
      await own.end();
    }
  });
});
