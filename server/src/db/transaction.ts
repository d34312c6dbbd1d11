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
