import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../test/databases';

// postgres.js 3.4.9 could write a transaction's BEGIN without reserving its connection
// when the socket pushed back or the pipeline was full (porsager/postgres#1189, #823):
// the call failed with UNSAFE_TRANSACTION and the open transaction went back to the pool,
// so unrelated queries ran inside it. Seen under the peak-hour benchmark's load; patched
// in patches/postgres@3.4.9.patch. `max_pipeline: 0` makes every BEGIN hit that branch.
let url: string;
beforeAll(async () => {
  url = await freshDatabaseUrl();
});

describe('postgres.js transactions under a full pipeline', () => {
  let sql: postgres.Sql | undefined;
  afterAll(() => sql?.end());

  it('reserves the connection of every BEGIN it writes, and leaves none open', async () => {
    // A documented option its type definitions leave out.
    const options = { max: 2, max_pipeline: 0, onnotice: () => {} } as postgres.Options<
      Record<string, never>
    >;
    sql = postgres(url, options);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        sql!.begin(async (tx) => {
          const [row] = await tx<{ n: number }[]>`select ${i}::int as n`;
          return row!.n;
        }),
      ),
    );
    expect(results).toEqual([0, 1, 2, 3, 4, 5]);
    // Outside any transaction again: now() moves between two statements' transactions.
    const idle = await Promise.all(
      Array.from({ length: 4 }, () => sql!`select pg_current_xact_id_if_assigned() as x`),
    );
    for (const [row] of idle) expect(row?.x).toBeNull();
    const [open] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
       where datname = current_database() and state like 'idle in transaction%'`;
    expect(open?.n).toBe(0);
  });
});

describe('postgres.js transactions, pipelined', () => {
  let sql: postgres.Sql | undefined;
  let proxy: Server | undefined;
  afterAll(async () => {
    await sql?.end();
    proxy?.close();
  });

  it('writes a plain BEGIN with the first statement, in one write, and still runs both in one transaction', async () => {
    // Between client and server, a proxy that counts what the client writes.
    const target = new URL(url);
    let writes = 0;
    proxy = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      client.on('data', (chunk) => {
        writes++;
        upstream.write(chunk);
      });
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
    const via = new URL(url);
    via.port = String((proxy.address() as AddressInfo).port);
    sql = postgres(via.toString(), { max: 1, onnotice: () => {} });
    const work = (tx: postgres.TransactionSql) =>
      Promise.all([
        tx<{ x: string }[]>`select txid_current()::text as x`,
        tx<{ x: string }[]>`select txid_current()::text as x, 2 as y`,
      ]).then(([[a], [b]]) => [a!.x === b!.x]);
    // Connected, and both statements prepared (a new one is described first).
    expect(await sql.begin(work)).toEqual([true]);
    writes = 0;
    const [inside] = await sql.begin(work);
    expect(inside).toBe(true);
    // BEGIN with both selects, then COMMIT: two writes (three without the patch: BEGIN alone).
    expect(writes).toBe(2);
    // A failing statement still rolls the whole transaction back.
    await sql`create table pipelined (n int)`;
    await expect(
      sql.begin(async (tx) => {
        await tx`insert into pipelined values (1)`;
        await tx`select 1/0`;
      }),
    ).rejects.toThrow();
    expect(await sql`select * from pipelined`).toHaveLength(0);
  });
});
