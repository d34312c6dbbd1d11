import { describe, expect, it, onTestFinished } from 'vitest';
import postgres from 'postgres';
import type { Sql } from '../db/connect';
import { useTestServer, waitFor } from '../../test/harness';
import { HeartbeatBatch } from './heartbeatBatch';

const stack = useTestServer();

type Tag = (strings: TemplateStringsArray, ...values: unknown[]) => unknown;

/** The test's client as a batch sees it, each statement's values passed to `before` first. */
function through(sql: Sql, before: (values: unknown[]) => Promise<never> | void): Sql {
  return ((strings: TemplateStringsArray, ...values: unknown[]) =>
    before(values) ?? (sql as unknown as Tag)(strings, ...values)) as unknown as Sql;
}

/** The test's own client, counting the statements a batch sends through it. */
function counting(sql: Sql): { sql: Sql; statements: () => number; sent: () => unknown[][] } {
  const sent: unknown[][] = [];
  return {
    sql: through(sql, (values) => void sent.push(values)),
    statements: () => sent.length,
    sent: () => sent,
  };
}

/** A terminal's row locked by another transaction until `release()`. */
async function holdRow(id: string): Promise<{ release: () => Promise<void> }> {
  let release!: () => void;
  const held = stack.sql.begin(async (tx) => {
    await tx`select 1 from terminals where id = ${id} for update`;
    await new Promise<void>((r) => (release = r));
  });
  await waitFor(() => release);
  return {
    release: async () => {
      release();
      await held;
    },
  };
}

/** Heartbeat statements now waiting for a row lock. */
async function heartbeatsWaitingForALock(): Promise<number> {
  const [row] = await stack.sql<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity
     where datname = current_database() and wait_event_type = 'Lock'
       and query like '%set last_heartbeat_at%' and query not like '%pg_stat_activity%'`;
  return row!.n;
}

async function untilHeartbeatWaitsForALock(): Promise<void> {
  await waitFor(async () => (await heartbeatsWaitingForALock()) > 0 || undefined);
}

async function terminalsAt(phone: string, n: number) {
  const station = await stack.station('1:S', { supportPhone: phone });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await stack.terminal(station.code)).id);
  return { station, ids };
}

describe('HeartbeatBatch', () => {
  it('writes heartbeats that arrive together with one statement, each answered its own station', async () => {
    const a = await terminalsAt('+381 11 555 0001', 12);
    const b = await terminalsAt('+381 11 555 0002', 12);
    const c = counting(stack.sql);
    const batch = new HeartbeatBatch(c.sql);
    const all = [...a.ids, ...b.ids];
    const answers = await Promise.all(all.map((id, i) => batch.record(id, `k-${i}`)));
    expect(c.statements()).toBe(1);
    expect(answers.map((x) => x?.support_phone)).toEqual([
      ...a.ids.map(() => '+381 11 555 0001'),
      ...b.ids.map(() => '+381 11 555 0002'),
    ]);
    expect(answers[0]?.code).toBe(a.station.code);
    const rows = await stack.sql<{ id: string; app_version: string; beat: boolean }[]>`
      select id, app_version, last_heartbeat_at > now() - interval '1 minute' as beat
        from terminals where id = any(${all}::uuid[])`;
    const byId = new Map(rows.map((r) => [r.id, r]));
    all.forEach((id, i) =>
      expect(byId.get(id)).toMatchObject({ app_version: `k-${i}`, beat: true }),
    );
  });

  it('sends what arrives during a statement in the next one, and no more than its batch size', async () => {
    const { ids } = await terminalsAt('+381 11 555 0003', 8);
    const c = counting(stack.sql);
    const batch = new HeartbeatBatch(c.sql, { maxBatch: 3 });
    // The first heartbeat's statement waits for its terminal's row, held by hand.
    const held = await holdRow(ids[0]!);
    const first = batch.record(ids[0]!, 'first');
    await untilHeartbeatWaitsForALock();
    expect(c.statements()).toBe(1);
    const rest = ids.slice(1).map((id) => batch.record(id, 'later'));
    await new Promise((r) => setTimeout(r, 50));
    expect(c.statements()).toBe(1);
    await held.release();
    expect((await first)?.support_phone).toBe('+381 11 555 0003');
    const later = await Promise.all(rest);
    expect(later.every((x) => x?.support_phone === '+381 11 555 0003')).toBe(true);
    // Seven waiting, three a statement: 1 + 3.
    expect(c.statements()).toBe(4);
  });

  it('waits its window for heartbeats that come a moment later; without one, writes at once', async () => {
    const { ids } = await terminalsAt('+381 11 555 0007', 2);
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const windowed = counting(stack.sql);
    const batch = new HeartbeatBatch(windowed.sql, { windowMs: 150 });
    const first = batch.record(ids[0]!, 'a');
    await sleep(40);
    const second = batch.record(ids[1]!, 'b');
    expect((await Promise.all([first, second])).map((x) => x?.support_phone)).toEqual([
      '+381 11 555 0007',
      '+381 11 555 0007',
    ]);
    expect(windowed.statements()).toBe(1);
    const direct = counting(stack.sql);
    const atOnce = new HeartbeatBatch(direct.sql);
    const third = atOnce.record(ids[0]!, 'c');
    await sleep(40);
    await Promise.all([third, atOnce.record(ids[1]!, 'd')]);
    expect(direct.statements()).toBe(2);
  });

  it('writes one terminal twice in a batch once, with the later version, and answers both', async () => {
    const { ids } = await terminalsAt('+381 11 555 0004', 1);
    const c = counting(stack.sql);
    const batch = new HeartbeatBatch(c.sql);
    const [one, two] = await Promise.all([
      batch.record(ids[0]!, 'k-1'),
      batch.record(ids[0]!, 'k-2'),
    ]);
    expect(one).toEqual(two);
    expect(one?.support_phone).toBe('+381 11 555 0004');
    const [row] = await stack.sql`select app_version from terminals where id = ${ids[0]!}`;
    expect(row?.app_version).toBe('k-2');
    // One statement naming the terminal once (a repeated id in one update would write
    // either version, as the planner meets them).
    expect(c.sent()).toEqual([['k-2', ids[0]]]);
  });

  it('answers every caller of a failed statement with its error, and writes the next', async () => {
    const { ids } = await terminalsAt('+381 11 555 0008', 2);
    let fail = true;
    const flaky = through(stack.sql, () => {
      if (!fail) return;
      fail = false;
      return Promise.reject(Object.assign(new Error('connection lost'), { code: '08006' }));
    });
    const batch = new HeartbeatBatch(flaky);
    const failed = await Promise.allSettled([
      batch.record(ids[0]!, 'x'),
      batch.record(ids[1]!, 'x'),
    ]);
    expect(failed.map((r) => r.status === 'rejected' && (r.reason as Error).message)).toEqual([
      'connection lost',
      'connection lost',
    ]);
    expect((await batch.record(ids[0]!, 'y'))?.support_phone).toBe('+381 11 555 0008');
  });

  it('fails only the terminal whose row is held past the lock timeout, not the kiosks beside it', async () => {
    const { ids } = await terminalsAt('+381 11 555 0009', 3);
    const impatient = postgres(stack.databaseUrl, {
      max: 2,
      onnotice: () => {},
      connection: { lock_timeout: 300 },
    });
    onTestFinished(() => impatient.end({ timeout: 1 }));
    const held = await holdRow(ids[1]!);
    const batch = new HeartbeatBatch(impatient);
    const outcomes = await Promise.allSettled(ids.map((id) => batch.record(id, 'beat')));
    await held.release();
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(((outcomes[1] as PromiseRejectedResult).reason as { code: string }).code).toBe('55P03');
    const rows = await stack.sql<{ id: string; app_version: string | null }[]>`
      select id, app_version from terminals where id = any(${ids}::uuid[])`;
    const versions = new Map(rows.map((r) => [r.id, r.app_version]));
    expect(ids.map((id) => versions.get(id))).toEqual(['beat', null, 'beat']);
  });

  it('writes nothing for a terminal revoked since it was authenticated, and answers undefined', async () => {
    const { ids } = await terminalsAt('+381 11 555 0010', 2);
    await stack.sql`update terminals set revoked_at = now() where id = ${ids[0]!}`;
    const batch = new HeartbeatBatch(stack.sql);
    const [revoked, live] = await Promise.all([
      batch.record(ids[0]!, 'k'),
      batch.record(ids[1]!, 'k'),
    ]);
    expect(revoked).toBeUndefined();
    expect(live?.support_phone).toBe('+381 11 555 0010');
    const [row] = await stack.sql`
      select app_version, last_heartbeat_at from terminals where id = ${ids[0]!}`;
    expect(row).toEqual({ app_version: null, last_heartbeat_at: null });
  });

  it('answers undefined for a terminal with no row and still writes the others', async () => {
    const { ids } = await terminalsAt('+381 11 555 0005', 1);
    const batch = new HeartbeatBatch(stack.sql);
    const [gone, here] = await Promise.all([
      batch.record('00000000-0000-4000-8000-000000000000', null),
      batch.record(ids[0]!, 'k'),
    ]);
    expect(gone).toBeUndefined();
    expect(here?.support_phone).toBe('+381 11 555 0005');
  });

  it('two instances sharing terminals in opposite orders wait for each other, no deadlock', async () => {
    const { ids } = await terminalsAt('+381 11 555 0006', 2);
    const [low, high] = [...ids].sort();
    // The plan of a fleet's table (28,000 terminals): each row of the batch found by the
    // index, in the batch's order. A test's few rows would be scanned in the table's order.
    const planned = postgres(stack.databaseUrl, {
      max: 2,
      onnotice: () => {},
      connection: { enable_seqscan: 'off', enable_hashjoin: 'off', enable_mergejoin: 'off' },
    });
    onTestFinished(() => planned.end({ timeout: 1 }));
    const one = counting(planned);
    const two = counting(planned);
    const first = new HeartbeatBatch(one.sql);
    const second = new HeartbeatBatch(two.sql);
    const held = await holdRow(low!);
    // Unordered, the first would take `low` once released while the second holds `high`.
    const a = Promise.all([first.record(low!, 'a'), first.record(high!, 'a')]);
    await untilHeartbeatWaitsForALock();
    const b = Promise.all([second.record(high!, 'b'), second.record(low!, 'b')]);
    await waitFor(async () => (await heartbeatsWaitingForALock()) === 2 || undefined);
    await held.release();
    const answers = [...(await a), ...(await b)];
    expect(answers.every((x) => x?.support_phone === '+381 11 555 0006')).toBe(true);
    // A deadlock would have cost one of them a second statement.
    expect([one.statements(), two.statements()]).toEqual([1, 1]);
  });
});
