import type { Middleware } from 'koa';
import type { Sql } from '../db/connect';
import { problem } from '../http/problem';
import { recordAttempt } from '../ratelimit/slidingWindow';

/**
 * Per-organization limit of the merchant interface: an exact sliding window of 60 s, the
 * terminals' (`ratelimit/slidingWindow.ts`), held in PostgreSQL so it holds across
 * instances. A request is admitted when at most `perMinute` requests of the organization,
 * itself and refused ones included, arrived in the 60 s before it: never more than
 * `perMinute` admitted in any 60 s. `clock` is for tests; by default the database's.
 */
export function merchantRateLimit(sql: Sql, perMinute: number, clock?: () => Date): Middleware {
  const window = { limit: perMinute, windowSeconds: 60 };
  return async (ctx, next) => {
    const orgId = (ctx.state as { organization: { id: string } }).organization.id;
    const judged = await recordAttempt(sql, orgId, 'merchant', window, clock?.());
    ctx.set('RateLimit-Policy', `${perMinute};w=60`);
    if (!judged.allowed) throw problem.rateLimited(judged.retryAfterSeconds);
    await next();
  };
}
