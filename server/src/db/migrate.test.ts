import { afterAll, describe, expect, it } from 'vitest';
import { connect, type Sql } from './connect';
import { migrate } from './migrate';
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
    const all = applied.flat();
    expect(all.length).toBeGreaterThan(0);
    expect(new Set(all).size).toBe(all.length);
    expect(await migrate(instances[0]!)).toEqual([]);
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
});
