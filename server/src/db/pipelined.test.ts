import { connect as connectTcp, createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../test/databases';
import { connect, type Sql } from './connect';
import { withPipelinedCommits } from './pipelined';

// Between client and server, a proxy that counts what the client writes.
let proxy: Server;
let writes = 0;
let sql: Sql;
let direct: Sql;
beforeAll(async () => {
  const url = await freshDatabaseUrl();
  const target = new URL(url);
  proxy = createServer((client) => {
    const upstream = connectTcp(Number(target.port), target.hostname);
    client.on('data', (chunk) => {
      writes++;
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const via = new URL(url);
  via.port = String((proxy.address() as AddressInfo).port);
  sql = connect(via.toString(), { max: 1 });
  direct = connect(url, { max: 1 });
  await direct`create table pipelined (n int primary key)`;
});
afterAll(async () => {
  await sql.end();
  await direct.end();
  proxy.close();
});

async function openTransactions(): Promise<number> {
  const [row] = await direct<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity
     where datname = current_database() and state like 'idle in transaction%'`;
  return row!.n;
}

describe('transactions whose COMMIT travels with their last statements', () => {
  const insertTwo = (n: number) =>
    withPipelinedCommits(sql, async ({ db, begin, commit }) => {
      const [, [row]] = await Promise.all([begin(), db<{ n: number }[]>`select ${n}::int as n`]);
      await Promise.all([
        db`insert into pipelined values (${row!.n})`,
        db`insert into pipelined values (${row!.n + 1})`,
        commit(),
      ]);
    });

  it('writes the last statements and COMMIT at once, and commits them', async () => {
    // Connected, and every statement prepared (a new one is described first).
    await insertTwo(1);
    writes = 0;
    await insertTwo(10);
    // BEGIN with the select; both inserts with COMMIT: two writes (three with COMMIT after).
    expect(writes).toBe(2);
    const rows = await direct<{ n: number }[]>`select n from pipelined order by n`;
    expect(rows.map((r) => r.n)).toEqual([1, 2, 10, 11]);
  });

  it('rolls all of it back when a statement before the COMMIT fails', async () => {
    // 20 is new, 11 is taken: the COMMIT after the failure ends the transaction as a rollback.
    await expect(
      withPipelinedCommits(sql, async ({ db, begin, commit }) => {
        await Promise.all([begin(), db`insert into pipelined values (20)`]);
        await Promise.all([db`insert into pipelined values (11)`, commit()]);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await direct`select 1 from pipelined where n = 20`).toHaveLength(0);
    // The connection went back to the pool out of any transaction.
    expect(await openTransactions()).toBe(0);
  });

  it('rolls back a transaction its work left open, by returning or by throwing', async () => {
    await withPipelinedCommits(sql, async ({ db, begin }) => {
      await Promise.all([begin(), db`insert into pipelined values (30)`]);
    });
    await expect(
      withPipelinedCommits(sql, async ({ db, begin }) => {
        await Promise.all([begin(), db`insert into pipelined values (31)`]);
        throw new Error('changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    expect(await direct`select 1 from pipelined where n in (30, 31)`).toHaveLength(0);
    expect(await openTransactions()).toBe(0);
  });
});
