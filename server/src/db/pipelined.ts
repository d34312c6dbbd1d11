import type { Sql, TransactionSql } from './connect';
import { ATTEMPTS, RETRYABLE, retryPause } from './transaction';

/** What `withPipelinedCommits` gives its work: one connection and its transactions. */
export interface PipelinedSteps {
  /** The reserved connection: statements issued together are written together. */
  db: TransactionSql;
  /** BEGIN, written with whatever is issued next; await it with that. */
  begin: () => Promise<unknown>;
  /**
   * COMMIT, written right behind the statements issued before it, without waiting for
   * their answers: PostgreSQL commits as soon as they ran. A statement before it that
   * failed aborted the transaction, and the COMMIT then rolls it back (that statement's
   * promise rejects, so await them together).
   */
  commit: () => Promise<unknown>;
}

/**
 * Transactions whose COMMIT travels with their last statements, on one reserved
 * connection (issue 28): a lock taken by those statements is released when they have
 * run, not after their answers have crossed to this process and the COMMIT back, so
 * others queueing on that lock (four couriers at one station) wait for PostgreSQL only.
 * `transaction()` cannot: postgres.js sends COMMIT after the work's promise settles.
 *
 * A transaction `work` leaves open (it returned or threw between `begin` and `commit`) is
 * rolled back before the connection goes back to the pool. The whole of `work` runs
 * again, on a fresh connection, when PostgreSQL aborted a statement as a serialization
 * failure or a deadlock victim, like `transaction()`: `work` must be safe to repeat after
 * such an abort (its committed transactions, if any, must leave it able to start over).
 */
export async function withPipelinedCommits<T>(
  sql: Sql,
  work: (steps: PipelinedSteps) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const reserved = await sql.reserve();
    let open = false;
    try {
      return await work({
        // A reserved connection inside BEGIN is a transaction; `savepoint` is never used.
        db: reserved as unknown as TransactionSql,
        begin: () => ((open = true), reserved`begin`),
        commit: () => ((open = false), reserved`commit`),
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (!code || !RETRYABLE.has(code) || attempt >= ATTEMPTS) throw error;
      await retryPause(attempt);
    } finally {
      try {
        if (open) await reserved`rollback`;
      } finally {
        reserved.release();
      }
    }
  }
}
