import {
  BulkCreateRequestSchema,
  BulkShipmentItemSchema,
  type BulkCreateResult,
  type BulkItemResult,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { Sql, TransactionSql } from '../db/connect';
import type { Services } from '../services';
import { readJson } from '../http/body';
import { ProblemError } from '../http/problem';
import { fieldErrors, validate } from '../http/validate';
import { idempotently, requestHash } from './idempotency';
import { create } from './shipments';
import type { Shipment } from '@locker/shared';

// Items run a few at a time, each in its own transaction: one failing item never rolls
// back another, and no transaction holds many idempotency keys at once.
const CONCURRENCY = 4;

type Unkeyed = <T>(work: (tx: TransactionSql) => Promise<T>) => Promise<T>;

async function createItem(
  sql: Sql,
  unkeyed: Unkeyed,
  organizationId: string,
  index: number,
  sent: unknown,
): Promise<BulkItemResult> {
  const key =
    sent &&
    typeof sent === 'object' &&
    typeof (sent as { idempotency_key?: unknown }).idempotency_key === 'string'
      ? (sent as { idempotency_key: string }).idempotency_key
      : null;
  const parsed = BulkShipmentItemSchema.safeParse(sent);
  if (!parsed.success) {
    return {
      index,
      idempotency_key: key,
      result: 'invalid',
      errors: fieldErrors(parsed.error, sent),
    };
  }
  const { idempotency_key, ...input } = parsed.data;
  try {
    const answer = idempotency_key
      ? await idempotently(sql, organizationId, idempotency_key, requestHash(input), (tx) =>
          create(tx, organizationId, input),
        )
      : input.reserve_door
        ? // A reserving item takes its station's lock: in the shared transaction it would
          // hold it until the whole call commits, and a keyed item of the same station,
          // in a transaction of its own, would wait for it forever.
          { ...(await create(sql, organizationId, input)), replayed: false }
        : // Un-keyed items share the call's transaction, each in a savepoint of its own.
          { ...(await unkeyed((tx) => create(tx, organizationId, input))), replayed: false };
    return {
      index,
      idempotency_key: key,
      result: answer.replayed ? 'replayed' : 'created',
      shipment: answer.body as Shipment,
    };
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    const field = error.code === 'station_full' ? 'reserve_door' : 'idempotency_key';
    const errors = error.errors ?? [
      { field, code: error.code, message: error.detail ?? error.message },
    ];
    return {
      index,
      idempotency_key: key,
      result: error.code === 'idempotency_conflict' ? 'conflict' : 'invalid',
      errors,
    };
  }
}

/**
 * POST /shipments/bulk: up to 100 shipments, each judged on its own: a result per item,
 * in request order (created, replayed, or why not). An item's `idempotency_key` makes a
 * retry of the whole call create only what is missing.
 */
export function bulkCreateShipments({ sql }: Services): Middleware {
  return async (ctx) => {
    const { shipments } = validate(
      BulkCreateRequestSchema,
      await readJson(ctx),
      'validation_failed',
    );
    const orgId = ctx.state.organization.id;
    const results = new Array<BulkItemResult>(shipments.length);
    // One transaction (one commit) for every item without a key: a failing item rolls back
    // only its own savepoint. Keyed items take their own, as a single create would.
    await sql.begin(async (shared) => {
      let queue = Promise.resolve();
      const unkeyed: Unkeyed = (work) => {
        const done = queue.then(() => shared.savepoint(work) as Promise<never>);
        queue = done.then(
          () => undefined,
          () => undefined,
        );
        return done;
      };
      let next = 0;
      const worker = async () => {
        while (next < shipments.length) {
          const index = next++;
          results[index] = await createItem(sql, unkeyed, orgId, index, shipments[index]);
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, shipments.length) }, worker));
    });
    const failed = results.filter((r) => r.result === 'invalid' || r.result === 'conflict').length;
    const body: BulkCreateResult = {
      results,
      created: results.filter((r) => r.result === 'created').length,
      failed,
    };
    ctx.body = body;
  };
}
