import type { Sql, TransactionSql } from './connect';

// serialization_failure, deadlock_detected: the transaction did nothing and may simply
// run again.
const RETRYABLE = new Set(['40001', '40P01']);
/**
 * Unique violations that mean a deposit beside this one won a race (migration 025): the
 * same pickup code drawn at one station, or a door filled that this statement's snapshot
 * still saw empty. Run again, the transaction draws another code or chooses another door.
 */
const RACES_LOST = new Set(['shipments_active_pickup_code', 'door_occupancy_pkey']);
const ATTEMPTS = 4;

/**
 * `sql.begin(work)`, run again (up to 4 times, after a short random pause) when
 * PostgreSQL aborts it as a serialization failure or a deadlock victim, or a deposit
 * lost a race to one beside it (`RACES_LOST`). The lock order
 * (`lockStation` first) keeps deadlocks out of the terminal paths; this is the net
 * under it, so a race never turns into a 500.
 */
export async function transaction<T>(
  sql: Sql,
  work: (tx: TransactionSql) => Promise<T>,
): Promise<T> {
  return retried(async () => (await sql.begin(work)) as T);
}

/**
 * A transaction sent in one write (issue 28): BEGIN, the statements `work` sends and
 * COMMIT go to PostgreSQL without waiting for an answer in between: one round trip, where
 * `transaction` takes one a statement and one more for the COMMIT, and nothing the
 * transaction locks waits for this process between its statements and its commit.
 *
 * For statements that need no answer from one another. `work` CALLS `execute()` ON EVERY
 * STATEMENT, IN ORDER, BEFORE IT RETURNS, and answers what it makes of their answers
 * through `inOrder` (what it does with them cannot undo the commit); the COMMIT is sent
 * after them. (A postgres.js query is sent a microtask after `execute()`, and an awaited
 * one only some microtasks after the `await`: not reliably before the COMMIT.) A statement
 * that fails aborts the transaction, whose COMMIT then ends it as a rollback, and its
 * failure is thrown here. Not retried: wrap the attempt in `retried`.
 *
 * What is not one write: a statement postgres.js has not yet prepared on the connection
 * (each text, once a connection) is described first, and what follows it waits for that
 * round trip; the one write is the warm case. And postgres.js sends again, on its own, a
 * statement whose prepared plan PostgreSQL refused (a schema changed under a running
 * server), behind the COMMIT already written: it then runs alone, outside the transaction.
 * So a write sent through here checks that it runs inside it (the deposit's door
 * statement does, `deposit.ts`).
 */
export async function inOneWrite<T>(
  sql: Sql,
  work: (tx: TransactionSql) => Promise<T>,
): Promise<T> {
  let answer: Promise<T> | undefined;
  await sql.begin((tx) => {
    answer = work(tx);
    // Awaited below, once the COMMIT's answer is back: not an unhandled rejection meanwhile.
    answer.catch(() => {});
    // Not the answer's promise, which postgres.js would wait for before its COMMIT.
    return undefined;
  });
  return answer!;
}

/**
 * The answers of statements sent together, once all have settled; the first failure in
 * the order given, if any. In a transaction whose statements are in flight together, a
 * failed statement makes every one after it fail with 25P02 ("current transaction is
 * aborted"), which may settle first: `Promise.all` would throw that instead of the cause
 * (a lost race, a deadlock: what `retried` runs again).
 */
export async function inOrder<T extends readonly unknown[]>(promises: {
  [K in keyof T]: PromiseLike<T[K]>;
}): Promise<T> {
  const settled = await Promise.allSettled(promises as readonly PromiseLike<unknown>[]);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * `run` (one transaction: a `sql.begin`, or a single statement), run again as
 * `transaction` runs its work again, up to `attempts` times in all.
 */
export async function retried<T>(run: () => Promise<T>, attempts = ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const { code, constraint_name: constraint } = error as {
        code?: string;
        constraint_name?: string;
      };
      const retryable =
        (code !== undefined && RETRYABLE.has(code)) ||
        (code === '23505' && constraint !== undefined && RACES_LOST.has(constraint));
      if (!retryable || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

/**
 * Where a terminal write path's statements run (issue 28): `tx`, in the caller's
 * transaction (the sandbox, offline replays), a statement at a time; `sql`, a kiosk's
 * request online, its read on its own and its write's transaction sent in one write
 * (`inOneWrite`).
 */
export type WriteDb = { tx: TransactionSql } | { sql: Sql };
