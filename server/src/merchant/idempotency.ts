import { createHash } from 'node:crypto';
import type { Sql, TransactionSql } from '../db/connect';
import { sameHash } from '../domain/secrets';
import { ProblemError } from '../http/problem';

export interface StoredAnswer {
  status: number;
  body: object;
}

/** An answer as sent: its body's exact text, which a replay sends again byte for byte. */
export interface SentAnswer extends StoredAnswer {
  text: string;
}

/** JSON with object keys sorted, so the same body sent with keys reordered is the same. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export function requestHash(body: unknown): Buffer {
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest();
}

/**
 * Runs `create` once per (organization, key) within 24 hours. The key row is inserted in
 * the same transaction as the shipment, so a concurrent request with the same key waits on
 * its primary key until the first commits, then replays the stored answer. A failure
 * inside `create` rolls the key back with everything else: nothing is remembered.
 */
export async function idempotently(
  sql: Sql,
  organizationId: string,
  key: string,
  hash: Buffer,
  create: (tx: TransactionSql) => Promise<StoredAnswer>,
): Promise<SentAnswer & { replayed: boolean }> {
  return sql.begin(async (tx) => {
    await tx`
      delete from idempotency_keys
       where organization_id = ${organizationId} and key = ${key}
         and created_at < now() - interval '24 hours'`;
    const [claimed] = await tx`
      insert into idempotency_keys (organization_id, key, request_hash)
      values (${organizationId}, ${key}, ${hash})
      on conflict do nothing
      returning key`;
    if (!claimed) {
      const [prior] = await tx<
        {
          request_hash: Buffer;
          response_status: number;
          response_body: object;
          response_text: string | null;
        }[]
      >`
        select request_hash, response_status, response_body, response_text from idempotency_keys
         where organization_id = ${organizationId} and key = ${key}`;
      if (!prior || !sameHash(prior.request_hash, hash)) {
        throw new ProblemError(
          'idempotency_conflict',
          'This Idempotency-Key was used with a different request body in the last 24 hours.',
        );
      }
      return {
        status: prior.response_status,
        body: prior.response_body,
        text: prior.response_text ?? JSON.stringify(prior.response_body),
        replayed: true,
      };
    }
    const answer = await create(tx);
    const text = JSON.stringify(answer.body);
    await tx`
      update idempotency_keys
         set response_status = ${answer.status}, response_body = ${tx.json(answer.body as never)},
             response_text = ${text}
       where organization_id = ${organizationId} and key = ${key}`;
    return { ...answer, text, replayed: false };
  });
}

/** Keys past their 24 hours. */
export async function pruneIdempotencyKeys(sql: Sql): Promise<void> {
  await sql`delete from idempotency_keys where created_at < now() - interval '24 hours'`;
}
