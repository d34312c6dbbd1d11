import type { Sql, TransactionSql } from './connect';

/**
 * The CTE `soft_commit`: `synchronous_commit` off until the end of the statement's
 * transaction (issue 28), so its commit does not wait for the WAL's flush. For a
 * statement that is its own transaction and writes only what may be lost with the last
 * 0.6 s of a crashed PostgreSQL (three `wal_writer_delay`s; a server's crash loses
 * nothing): a rate limit's attempt, an outbox claim (its outcome is durable, and a
 * flush of the outcome flushes the claim written before it). A `select` CTE runs only
 * when read: the statement must read it (`softCommitRead`). Refused inside an explicit
 * transaction, whose other writes must stay durable.
 */
export function softCommit(sql: Sql | TransactionSql) {
  if ('savepoint' in sql)
    throw new Error('a soft commit is for a statement that is its own transaction');
  return sql`soft_commit as (select set_config('synchronous_commit', 'off', true) as setting)`;
}

/** A condition that reads `soft_commit` (true), for a statement's `where`. */
export function softCommitRead(sql: Sql | TransactionSql) {
  return sql`exists (select from soft_commit)`;
}
