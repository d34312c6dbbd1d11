import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/harness';
import type { Sql } from '../db/connect';
import { afterLimitHit, type AlarmState } from './bruteForceAlarm';
import { recordAttempt } from './slidingWindow';

const stack = useTestServer();

const window = { limit: 3, windowSeconds: 60 };

/** Sets a subject's kept attempt times to `secondsAgo` before now. */
async function attemptsAgo(sql: Sql, subject: string, secondsAgo: number[]) {
  await sql`
    insert into rate_limit_windows (subject, bucket, attempts)
    values (${subject}, 'test',
            array(select now() - make_interval(secs => s) from unnest(${secondsAgo}::float8[]) s))
    on conflict (subject, bucket) do update set attempts = excluded.attempts`;
}

/**
 * Rows the attempt read and wrote, and buffers it touched: the backend's not yet flushed
 * counters, read before and after it inside one transaction (nothing flushes them then).
 */
async function workOf(sql: Sql, subject: string) {
  return sql.begin(async (tx) => {
    const counters = async () => {
      const [c] = await tx<{ rows: number; written: number; blocks: number }[]>`
        select (pg_stat_get_xact_tuples_returned(c.oid) + pg_stat_get_xact_tuples_fetched(c.oid))::int as rows,
               (pg_stat_get_xact_tuples_inserted(c.oid) + pg_stat_get_xact_tuples_updated(c.oid))::int as written,
               pg_stat_get_xact_blocks_fetched(c.oid)::int as blocks
          from pg_class c where c.relname = 'rate_limit_windows'`;
      return c!;
    };
    const before = await counters();
    await recordAttempt(tx, subject, 'test', window);
    const after = await counters();
    return {
      rows: after.rows - before.rows,
      written: after.written - before.written,
      blocks: after.blocks - before.blocks,
    };
  });
}

describe('exact sliding window at constant cost', () => {
  it('allows `limit` attempts in any 60 s, counts refused ones, and names the exact wait', async () => {
    const subject = randomUUID();
    const verdicts = [];
    for (let i = 0; i < 5; i++)
      verdicts.push((await recordAttempt(stack.sql, subject, 'test', window)).allowed);
    expect(verdicts).toEqual([true, true, true, false, false]);
    // Attempts 58, 50 and 20 s ago: a 4th now would make 4 in the window. The wait is
    // until the one 50 s ago leaves (10 s), not the one 58 s ago (2 s): refused
    // attempts count, so the window still holds 3 after the oldest leaves.
    const paced = randomUUID();
    await attemptsAgo(stack.sql, paced, [58, 50, 20]);
    const refused = await recordAttempt(stack.sql, paced, 'test', window);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(10);
    // Retrying exactly Retry-After later is allowed: 11 s later the kept times read
    // 61, 31 and 11 s ago (the refused attempt counts).
    await stack.sql`
      update rate_limit_windows set attempts = array(select t - interval '11 seconds' from unnest(attempts) t)
       where subject = ${paced}`;
    expect((await recordAttempt(stack.sql, paced, 'test', window)).allowed).toBe(true);
    // Attempts all older than the window leave room at once.
    const old = randomUUID();
    await attemptsAgo(stack.sql, old, [90, 80, 70, 61]);
    expect((await recordAttempt(stack.sql, old, 'test', window)).allowed).toBe(true);
  });

  it('keeps only the attempts still inside the window, however high the limit', async () => {
    // A limit the row never reaches: what leaves it is what left the window (issue 28: a
    // high limit kept every attempt since the first, each rewritten at every attempt).
    const wide = { limit: 1000, windowSeconds: 60 };
    const subject = randomUUID();
    await attemptsAgo(stack.sql, subject, [300, 200, 90, 61, 59, 30]);
    expect((await recordAttempt(stack.sql, subject, 'test', wide)).allowed).toBe(true);
    const [row] = await stack.sql<{ ago: number[] }[]>`
      select array(select round(extract(epoch from now() - t))::int from unnest(attempts) t) as ago
        from rate_limit_windows where subject = ${subject} and bucket = 'test'`;
    expect(row!.ago).toEqual([59, 30, 0]);
  });

  it('keeps the times sorted when the database’s clock steps back', async () => {
    // The newest kept attempt 5 s ahead of the clock, as after a step back of the clock:
    // the new attempt is kept at that time, not before it (the window's searches need
    // the times in order).
    const subject = randomUUID();
    await attemptsAgo(stack.sql, subject, [30, -5]);
    expect((await recordAttempt(stack.sql, subject, 'test', window)).allowed).toBe(true);
    const [row] = await stack.sql<{ sorted: boolean; n: number }[]>`
      select attempts = array(select t from unnest(attempts) t order by t) as sorted,
             cardinality(attempts) as n
        from rate_limit_windows where subject = ${subject} and bucket = 'test'`;
    expect(row).toEqual({ sorted: true, n: 3 });
  });

  it('commits a soft attempt without waiting for the disk, that transaction alone, and refuses one inside a transaction', async () => {
    const subject = randomUUID();
    const conn = await stack.sql.reserve();
    try {
      const setting = async () =>
        (await conn<{ s: string }[]>`select current_setting('synchronous_commit') as s`)[0]!.s;
      // As production runs (the tests' PostgreSQL commits asynchronously throughout).
      await conn`set synchronous_commit = on`;
      expect(await setting()).toBe('on');
      // Read inside the attempt's own transaction: asynchronous there.
      await conn`begin`;
      const soft = await recordAttempt(conn, subject, 'test', window, undefined, { soft: true });
      expect(soft.allowed).toBe(true);
      expect(await setting()).toBe('off');
      await conn`commit`;
      // And only there: the connection's next transactions commit durably again.
      expect(await setting()).toBe('on');
      await recordAttempt(conn, subject, 'test', window, undefined, { soft: true });
      expect(await setting()).toBe('on');
    } finally {
      await conn`reset synchronous_commit`;
      conn.release();
    }
    // Both attempts counted, as any other's.
    const [row] = await stack.sql<{ n: number }[]>`
      select cardinality(attempts) as n from rate_limit_windows where subject = ${subject}`;
    expect(row!.n).toBe(2);
    // A transaction's other writes must stay durable: a soft attempt there is refused.
    await expect(
      stack.sql.begin((tx) =>
        recordAttempt(tx, randomUUID(), 'test', window, undefined, { soft: true }),
      ),
    ).rejects.toThrow(/its own transaction/);
  });

  it('does the same work per attempt after a flood as before it, for the flooder and everyone else', async () => {
    const flooder = randomUUID();
    const other = randomUUID();
    await recordAttempt(stack.sql, other, 'test', window);
    const otherBefore = await workOf(stack.sql, other);
    await recordAttempt(stack.sql, flooder, 'test', window);
    const flooderEarly = await workOf(stack.sql, flooder);
    // 600 attempts from 8 clients at once: the state stays limit + 1 timestamps.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 75; i++) await recordAttempt(stack.sql, flooder, 'test', window);
      }),
    );
    const [kept] = await stack.sql<{ n: number }[]>`
      select cardinality(attempts) as n from rate_limit_windows where subject = ${flooder}`;
    expect(kept?.n).toBe(window.limit + 1);
    const flooderLate = await workOf(stack.sql, flooder);
    const otherAfter = await workOf(stack.sql, other);
    // One row probed and one written per attempt, early or late in the flood, flooder or
    // not (a dead row version left by the flood may be stepped over: at most one more).
    for (const work of [otherBefore, flooderEarly, flooderLate, otherAfter]) {
      expect(work.rows).toBeLessThanOrEqual(2);
      expect(work.written).toBe(1);
    }
    // The pages read: the same few as before the flood once its dead row versions are
    // gone (before a vacuum, index entries of dead versions can each cost a page more:
    // 9 and 11 of them seen on a busy machine; that is PostgreSQL's, not the window's).
    // A vacuum removes them only once no snapshot still sees them, and the server's own
    // sweeps run beside the test (8 pages once in CI after one vacuum): vacuumed again
    // until it could, at most 20 times.
    let flooderVacuumed = await workOf(stack.sql, flooder);
    for (let i = 0; i < 20 && !(flooderVacuumed.blocks <= 6); i++) {
      await stack.sql`vacuum rate_limit_windows`;
      flooderVacuumed = await workOf(stack.sql, flooder);
    }
    for (const work of [otherBefore, flooderEarly, flooderVacuumed])
      expect(work.blocks).toBeLessThanOrEqual(6);
  });
});

describe('courier-number lookups (extension)', () => {
  it('allows 10 per terminal per minute across /courier/verify and /courier/returns', async () => {
    const { terminal, courier } = await stack.scene('1:S');
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      statuses.push(
        (await terminal.api.post('/terminal/v1/courier/verify', { courierNo: `x${i}` })).status,
      );
      statuses.push(
        (await terminal.api.post('/terminal/v1/courier/returns', { courierNo: courier.number }))
          .status,
      );
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
    const limited = await terminal.api.post('/terminal/v1/courier/verify', {
      courierNo: courier.number,
    });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'rate_limited' });
    expect(limited.body.courierName).toBeUndefined();
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('brute-force alarm episodes', () => {
  const policy = { hitMinutes: 3, ofLastMinutes: 5 };
  const start: AlarmState = { limitedMinutes: [], episodeAlerted: false };

  it('raises once when the limit is hit in 3 of the last 5 minutes, and again only after a quiet gap', () => {
    let state = afterLimitHit(start, 100, policy);
    expect(state.raise).toBe(false);
    state = afterLimitHit(state.state, 102, policy);
    expect(state.raise).toBe(false);
    expect(afterLimitHit(state.state, 102, policy).raise).toBe(false);
    state = afterLimitHit(state.state, 104, policy);
    expect(state.raise).toBe(true);
    for (const minute of [105, 106, 109, 113]) {
      state = afterLimitHit(state.state, minute, policy);
      expect(state.raise).toBe(false);
    }
    // Five quiet minutes end the episode; the next sustained run raises again.
    state = afterLimitHit(state.state, 118, policy);
    expect(state.raise).toBe(false);
    state = afterLimitHit(state.state, 119, policy);
    state = afterLimitHit(state.state, 120, policy);
    expect(state.raise).toBe(true);
  });

  it('does not raise for hits spread thinner than 3 in 5 minutes', () => {
    let state = { state: start, raise: false };
    for (const minute of [10, 14, 18, 22, 26]) {
      state = afterLimitHit(state.state, minute, policy);
      expect(state.raise).toBe(false);
    }
  });

  it('alerts operations once per episode when a terminal keeps hitting the pickup limit', async () => {
    const { terminal, station } = await stack.scene('1:S');
    const [now] = await stack.sql<
      { m: string }[]
    >`select floor(extract(epoch from now()) / 60)::bigint as m`;
    const minute = Number(now!.m);
    // The limit was already hit in the two previous minutes.
    await stack.sql`
      insert into rate_limit_windows (subject, bucket, attempts, limited_minutes)
      values (${terminal.id}, 'pickup', array[now()], ${[String(minute - 2), String(minute - 1)]}::bigint[])`;
    const statuses = [];
    for (let i = 0; i < 14; i++)
      statuses.push((await terminal.api.post('/terminal/v1/pickup', { code: '12345678' })).status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const alerts = await stack.sql<{ kind: string; terminal_id: string }[]>`
      select kind, terminal_id from alerts where station_id = ${station.id}`;
    expect(alerts).toEqual([{ kind: 'pickup_brute_force', terminal_id: terminal.id }]);
  });
});
