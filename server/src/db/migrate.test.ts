import { afterAll, describe, expect, it } from 'vitest';
import { connect, type Sql } from './connect';
import { readdir } from 'node:fs/promises';
import { MIGRATIONS_DIR, migrate } from './migrate';
import { withDatabase } from '../../test/databases';
import { inject } from 'vitest';
import { randomBytes } from 'node:crypto';

const opened: Sql[] = [];
afterAll(() => Promise.all(opened.map((s) => s.end())));

/** A database with nothing in it, not even the migrations table. */
async function emptyDatabase(): Promise<string> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `locker_t_${randomBytes(6).toString('hex')}`;
  const admin = connect(adminUrl, { max: 1 });
  await admin`create database ${admin(name)}`;
  await admin.end();
  return withDatabase(adminUrl, name);
}

describe('migrate', () => {
  it('applies every migration exactly once when several instances start at the same moment', async () => {
    const url = await emptyDatabase();
    const instances = [1, 2, 3].map(() => connect(url, { max: 2 }));
    opened.push(...instances);
    const applied = await Promise.all(instances.map((sql) => migrate(sql)));
    // One instance applied every file, in order; the others found nothing left to do.
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
    expect(files.length).toBeGreaterThanOrEqual(5);
    expect(applied.filter((names) => names.length > 0)).toEqual([files]);
    expect(applied.flat()).toHaveLength(files.length);
    const recorded = await instances[0]!<{ name: string }[]>`
      select name from schema_migrations order by name`;
    expect(recorded.map((r) => r.name)).toEqual(files);
    expect(await migrate(instances[0]!)).toEqual([]);
    // What the files build is there: a table of the first migration and of the last ones.
    const tables = await instances[0]!<{ name: string }[]>`
      select table_name as name from information_schema.tables where table_schema = 'public'`;
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining(['stations', 'doors', 'shipments', 'terminals', 'outbox']),
    );
  });

  it('marks every SMS queued before the code mark existed as carrying a code', async () => {
    const url = await emptyDatabase();
    const sql = connect(url, { max: 1 });
    opened.push(sql);
    await migrate(sql, { through: '004_parcel_expiry.sql' });
    const sms = { to: '+38344123456', language: 'en', text: 'Your pickup code is ********.' };
    await sql`insert into outbox (channel, payload) values ('sms', ${sql.json(sms)})`;
    expect(await migrate(sql, { through: '005_sms_carries_code.sql' })).toEqual([
      '005_sms_carries_code.sql',
    ]);
    const [row] = await sql`select payload from outbox`;
    expect(row?.payload).toEqual({ ...sms, carriesCode: true });
  });

  it('keeps the events numbered per organization first, in their order, and numbers new ones after them', async () => {
    const url = await emptyDatabase();
    const sql = connect(url, { max: 1 });
    opened.push(sql);
    await migrate(sql, { through: '008_storage_notices_sandbox.sql' });
    const [org] = await sql<
      { id: string }[]
    >`insert into organizations (name) values ('Shop') returning id`;
    for (const seq of [2, 1])
      await sql`
        insert into events (organization_id, seq, type, body)
        values (${org!.id}, ${seq}, 'shipment.ready_for_pickup', ${`old ${seq}`})`;
    expect(await migrate(sql, { through: '009_event_order_without_hot_row.sql' })).toEqual([
      '009_event_order_without_hot_row.sql',
    ]);
    await sql`
      insert into events (organization_id, type, body)
      values (${org!.id}, 'shipment.collected', 'new')`;
    const rows = await sql<{ body: string; seq: string }[]>`
      select body, seq from events where organization_id = ${org!.id} order by xid, seq`;
    expect(rows.map((r) => r.body)).toEqual(['old 1', 'old 2', 'new']);
    expect(Number(rows[2]!.seq)).toBeGreaterThan(2);
  });

  it('redacts the pickup code of every SMS row already final, and of none still to be sent', async () => {
    const url = await emptyDatabase();
    const sql = connect(url, { max: 1 });
    opened.push(sql);
    await migrate(sql, { through: '009_event_order_without_hot_row.sql' });
    const sms = (code: string) => ({
      to: '+38344123456',
      language: 'en',
      text: `Parcel 4012888888881: your pickup code is ${code}.`,
      carriesCode: true,
    });
    await sql`
      insert into outbox (channel, payload, failed_at, last_error)
      values ('sms', ${sql.json(sms('11112222'))}, now(), 'sandbox: never sent'),
             ('sms', ${sql.json(sms('33334444'))}, null, null)`;
    await migrate(sql);
    const rows = await sql<
      { text: string }[]
    >`select payload->>'text' as text from outbox order by id`;
    expect(rows.map((r) => r.text)).toEqual([
      'Parcel 4012888888881: your pickup code is ********.',
      'Parcel 4012888888881: your pickup code is 33334444.',
    ]);
  });
});
