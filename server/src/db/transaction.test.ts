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
});
