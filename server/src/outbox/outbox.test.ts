import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../test/databases';
import { connect, type Sql } from '../db/connect';
import { createLogger } from '../logger';
import { waitFor } from '../../test/harness';
import { DeliveryError, deliverDue, type ChannelPolicy, type OutboxMessage } from './outbox';

let sql: Sql;
beforeAll(async () => {
  sql = connect(await freshDatabaseUrl(), { max: 4 });
});
afterAll(() => sql.end());

interface Numbered {
  n: number;
  sent?: boolean;
}

const log = createLogger('silent');

describe('outbox delivery in batches', () => {
  it('claims a batch in one go, prepares it once, and records each outcome as before', async () => {
    const ids = await sql<{ id: string }[]>`
      insert into outbox (channel, payload)
      select 'sms', jsonb_build_object('n', n) from generate_series(0, 4) n
      returning id`;
    // The fourth has had its attempts but the last already.
    await sql`update outbox set attempts = 1 where id = ${ids[3]!.id}`;
    const prepared: number[][] = [];
    const policy: ChannelPolicy<Numbered, string> = {
      channel: 'sms',
      maxAttempts: 2,
      maxBackoffSeconds: 60,
      prepare: (messages) => {
        prepared.push(messages.map((m) => m.payload.n).sort());
        return Promise.resolve('context');
      },
      deliver: async (message: OutboxMessage<Numbered>, context) => {
        expect(context).toBe('context');
        const { n } = message.payload;
        if (n === 1) throw new DeliveryError('busy', { retryAfterSeconds: 100 });
        if (n === 2) throw new DeliveryError('gone', { permanent: true });
        if (n === 3) throw new Error('still down');
        // The slow one is accepted later: its time says so, whatever the batch waited.
        if (n === 4) await new Promise((resolve) => setTimeout(resolve, 400));
      },
      afterDelivery: (payload) => ({ ...payload, sent: true }),
    };
    expect(await deliverDue(sql, policy, log)).toBe(false);
    expect(prepared).toEqual([[0, 1, 2, 3, 4]]);

    const rows = await sql<
      {
        n: number;
        sent: boolean | null;
        attempts: number;
        delivered: boolean;
        failed: boolean;
        last_error: string | null;
        wait_s: number;
      }[]
    >`
      select (payload->>'n')::int as n, (payload->>'sent')::boolean as sent, attempts,
             delivered_at is not null as delivered, failed_at is not null as failed, last_error,
             round(extract(epoch from next_attempt_at - now()))::int as wait_s
        from outbox where id in ${sql(ids.map((i) => i.id))} order by n`;
    expect(rows.map(({ wait_s, ...r }) => ({ ...r, waits: wait_s > 90 }))).toEqual([
      {
        n: 0,
        sent: true,
        attempts: 1,
        delivered: true,
        failed: false,
        last_error: null,
        waits: false,
      },
      {
        n: 1,
        sent: null,
        attempts: 1,
        delivered: false,
        failed: false,
        last_error: 'busy',
        waits: true,
      },
      {
        n: 2,
        sent: null,
        attempts: 1,
        delivered: false,
        failed: true,
        last_error: 'gone',
        waits: false,
      },
      {
        n: 3,
        sent: null,
        attempts: 2,
        delivered: false,
        failed: true,
        last_error: 'still down',
        waits: false,
      },
      {
        n: 4,
        sent: true,
        attempts: 1,
        delivered: true,
        failed: false,
        last_error: null,
        waits: false,
      },
    ]);
    const [gap] = await sql<{ ms: number }[]>`
      select (extract(epoch from max(delivered_at) - min(delivered_at)) * 1000)::float8 as ms
        from outbox where id in ${sql([ids[0]!.id, ids[4]!.id])}`;
    expect(gap!.ms).toBeGreaterThan(300);
    const alerts = await sql`
      select message from alerts where kind = 'outbox_gave_up' and message like ${`%${ids[3]!.id}%`}`;
    expect(alerts).toHaveLength(1);
    // Nothing else is due: the retry waits its 100 s.
    prepared.length = 0;
    expect(await deliverDue(sql, policy, log)).toBe(false);
    expect(prepared).toEqual([]);
  });

  it('leaves a batch claimed by an instance that died to the others once its lease runs out', async () => {
    const ids = await sql<{ id: string }[]>`
      insert into outbox (channel, payload)
      select 'webhook', jsonb_build_object('n', n) from generate_series(0, 2) n
      returning id`;
    const policy = (deliver: () => Promise<void>): ChannelPolicy<Numbered> => ({
      channel: 'webhook',
      maxAttempts: 5,
      maxBackoffSeconds: 60,
      deliver,
    });
    // The first instance claims the batch and dies in the middle of delivering it.
    const dying = deliverDue(
      sql,
      policy(() => new Promise(() => {})),
      log,
    );
    let dyingEnded = false;
    void dying.finally(() => (dyingEnded = true));
    // Waits for its claim (every row leased once), not for a time that a busy machine may
    // need more than: before the claim the other instance could take the batch itself.
    await waitFor(async () => {
      const [claimed] = await sql<{ n: number }[]>`
        select count(*)::int as n from outbox
         where id in ${sql(ids.map((i) => i.id))} and attempts = 1 and next_attempt_at > now()`;
      return claimed!.n === 3;
    });
    expect(dyingEnded).toBe(false);
    const delivered: number[] = [];
    const other = policy(() => (delivered.push(1), Promise.resolve()));
    expect(await deliverDue(sql, other, log)).toBe(false);
    expect(delivered).toEqual([]);
    // 60 s later (the lease), the other instance delivers all of it: late, never lost.
    await sql`update outbox set next_attempt_at = next_attempt_at - interval '61 seconds'
               where id in ${sql(ids.map((i) => i.id))}`;
    await deliverDue(sql, other, log);
    expect(delivered).toHaveLength(3);
    const rows = await sql<{ attempts: number; delivered: boolean }[]>`
      select attempts, delivered_at is not null as delivered
        from outbox where id in ${sql(ids.map((i) => i.id))}`;
    expect(rows).toEqual(Array(3).fill({ attempts: 2, delivered: true }));
  });

  it('claims without waiting for the disk, and only the claim: its outcome commits durably', async () => {
    const ids = await sql<{ id: string }[]>`
      insert into outbox (channel, payload)
      select 'sms', jsonb_build_object('n', n) from generate_series(10, 11) n
      returning id`;
    const conn = await sql.reserve();
    const setting = async () =>
      (await conn<{ s: string }[]>`select current_setting('synchronous_commit') as s`)[0]!.s;
    try {
      // As production runs (the tests' PostgreSQL commits asynchronously throughout).
      await conn`set synchronous_commit = on`;
      // The claim's transaction held open to look inside it, as a delivery would.
      await conn`begin`;
      const during: string[] = [];
      const policy: ChannelPolicy<Numbered> = {
        channel: 'sms',
        maxAttempts: 2,
        maxBackoffSeconds: 60,
        deliver: async () => void during.push(await setting()),
      };
      await deliverDue(conn as unknown as Sql, policy, log);
      expect(during).toEqual(['off', 'off']);
      await conn`commit`;
      // Outside it, each statement is its own transaction: the outcomes' is durable.
      expect(await setting()).toBe('on');
      await conn`update outbox set next_attempt_at = now(), delivered_at = null
                  where id in ${conn(ids.map((i) => i.id))}`;
      during.length = 0;
      await deliverDue(conn as unknown as Sql, policy, log);
      expect(during).toEqual(['on', 'on']);
      expect(await setting()).toBe('on');
    } finally {
      await conn`reset synchronous_commit`;
      conn.release();
    }
    const rows = await sql<{ delivered: boolean }[]>`
      select delivered_at is not null as delivered from outbox where id in ${sql(ids.map((i) => i.id))}`;
    expect(rows).toEqual([{ delivered: true }, { delivered: true }]);
  });
});
