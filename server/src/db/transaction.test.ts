import { describe, expect, it } from 'vitest';
import type { Sql, TransactionSql } from './connect';
import { transaction } from './transaction';

/** A client whose transactions run `work` directly, as PostgreSQL would after BEGIN. */
const fakeSql = {
  begin: (work: (tx: TransactionSql) => Promise<unknown>) => work({} as TransactionSql),
} as unknown as Sql;

const failure = (code: string) => Object.assign(new Error(code), { code });

describe('transaction', () => {
  it('runs a deadlock victim or serialization failure again', async () => {
    for (const code of ['40P01', '40001']) {
      let attempts = 0;
      const result = await transaction(fakeSql, () => {
        attempts++;
        return attempts < 3 ? Promise.reject(failure(code)) : Promise.resolve('done');
      });
      expect({ result, attempts }).toEqual({ result: 'done', attempts: 3 });
    }
  });

  it('gives up after four attempts, and never retries other errors', async () => {
    let attempts = 0;
    await expect(
      transaction(fakeSql, () => {
        attempts++;
        return Promise.reject(failure('40P01'));
      }),
    ).rejects.toThrow('40P01');
    expect(attempts).toBe(4);
    attempts = 0;
    await expect(
      transaction(fakeSql, () => {
        attempts++;
        return Promise.reject(failure('23505'));
      }),
    ).rejects.toThrow('23505');
    expect(attempts).toBe(1);
  });

  it('runs again a deposit that lost a race to one beside it: the same code, or the same door', async () => {
    for (const constraint of ['shipments_active_pickup_code', 'door_occupancy_pkey']) {
      let attempts = 0;
      const result = await transaction(fakeSql, () => {
        attempts++;
        return attempts < 2
          ? Promise.reject(Object.assign(failure('23505'), { constraint_name: constraint }))
          : Promise.resolve('done');
      });
      expect({ constraint, result, attempts }).toEqual({ constraint, result: 'done', attempts: 2 });
    }
    // Any other unique violation is the caller's to answer, at once.
    let attempts = 0;
    await expect(
      transaction(fakeSql, () => {
        attempts++;
        return Promise.reject(
          Object.assign(failure('23505'), { constraint_name: 'shipments_tracking_number_key' }),
        );
      }),
    ).rejects.toThrow('23505');
    expect(attempts).toBe(1);
  });
});
