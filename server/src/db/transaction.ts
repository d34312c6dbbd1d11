import type { Sql, TransactionSql } from './connect';

// serialization_failure, deadlock_detected: the transaction did nothing and may simply
// run again.
const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 4;

/**
 * `sql.begin(work)`, run again (up to 4 times, after a short random pause) when
 * PostgreSQL aborts it as a serialization failure or a deadlock victim. The lock order
 * (`lockStation` first) keeps deadlocks out of the terminal paths; this is the net
 * under it, so a race never turns into a 500.
 */
export async function transaction<T>(
  sql: Sql,
  work: (tx: TransactionSql) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await sql.begin(work)) as T;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (!code || !RETRYABLE.has(code) || attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
