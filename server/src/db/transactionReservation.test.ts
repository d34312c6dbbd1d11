import { createRequire } from 'node:module';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
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

// postgres.js keeps its connections in queues (idle, busy, …) whose shift left each taken
// slot behind the head until the queue was empty at a shift; a pool's idle queue under
// steady load never is, so its array grew by one slot a query and every move of a
// connection searched all of it (patched: the head is cut off once it is half the array).
describe("postgres.js's connection queues", () => {
  type Queue<T> = { length: number; push(x: T): T; shift(): T | undefined; remove(x: T): T | null };
  interface Connection {
    id: number;
    queue: Queue<Connection>;
  }
  // Both copies: CommonJS (what require loads) and the ES module the server imports.
  const root = path.resolve(
    path.dirname(createRequire(import.meta.url).resolve('postgres')),
    '../..',
  );
  const copies = ['cjs/src/queue.js', 'src/queue.js'];

  it.each(copies)(
    '%s: stay as long as what they hold, and first in first out, through a pool’s moves',
    async (copy) => {
      const loaded = (await import(pathToFileURL(path.join(root, copy)).href)) as {
        default: () => Queue<Connection>;
      };
      const Queue = loaded.default;
      const idle = Queue();
      const busy = Queue();
      const connections = Array.from({ length: 20 }, (_, id): Connection => ({ id, queue: idle }));
      for (const c of connections) idle.push(c);
      const move = (c: Connection, to: Queue<Connection>) => {
        c.queue.remove(c);
        to.push(c);
        c.queue = to;
      };
      // The longest array any queue searched (Array.prototype.indexOf, which remove uses).
      let longest = 0;
      const indexOf = Array.prototype.indexOf;
      Array.prototype.indexOf = function (this: unknown[], ...args: [unknown, number?]) {
        longest = Math.max(longest, this.length);
        return indexOf.apply(this, args);
      };
      const order: number[] = [];
      try {
        // As the pool does per query: take the first idle connection, mark it busy, and
        // put it back at the end of the idle queue when its query is done.
        for (let query = 0; query < 50_000; query++) {
          const c = idle.shift()!;
          if (query >= 49_980) order.push(c.id);
          move(c, busy);
          move(c, idle);
        }
      } finally {
        Array.prototype.indexOf = indexOf;
      }
      // Searched at all (remove still finds by indexOf), and never far.
      expect(longest).toBeGreaterThan(0);
      expect(longest).toBeLessThanOrEqual(2 * 20 + 32);
      // Round robin, each connection once in every 20 queries.
      expect(order).toEqual(Array.from({ length: 20 }, (_, i) => (49_980 + i) % 20));
      expect([idle.length, busy.length]).toEqual([20, 0]);
      // Emptied by shifts, one past the end too, and used again.
      for (let i = 0; i < 21; i++) idle.shift();
      expect(idle.length).toBe(0);
      idle.push(connections[3]!);
      expect([idle.length, idle.shift()?.id, idle.length]).toEqual([1, 3, 0]);
    },
  );
});
