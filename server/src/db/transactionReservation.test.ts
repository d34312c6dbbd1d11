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
