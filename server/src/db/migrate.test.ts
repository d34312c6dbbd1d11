import { afterAll, describe, expect, it } from 'vitest';
import { connect, type Sql } from './connect';
import { migrate } from './migrate';
import { withDatabase } from '../../test/databases';
import { inject } from 'vitest';
import { randomBytes } from 'node:crypto';

const opened: Sql[] = [];
afterAll(() => Promise.all(opened.map((s) => s.end())));

describe('migrate', () => {
  it('applies every migration exactly once when several instances start at the same moment', async () => {
    const adminUrl = inject('adminDatabaseUrl');
    const name = `locker_t_${randomBytes(6).toString('hex')}`;
    const admin = connect(adminUrl, { max: 1 });
    await admin`create database ${admin(name)}`;
    await admin.end();
    const instances = [1, 2, 3].map(() => connect(withDatabase(adminUrl, name), { max: 2 }));
    opened.push(...instances);
    const applied = await Promise.all(instances.map((sql) => migrate(sql)));
    const all = applied.flat();
    expect(all.length).toBeGreaterThan(0);
    expect(new Set(all).size).toBe(all.length);
    expect(await migrate(instances[0]!)).toEqual([]);
  });
});
