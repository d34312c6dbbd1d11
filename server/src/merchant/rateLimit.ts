import type { Middleware } from 'koa';
import type { Sql } from '../db/connect';
import { problem } from '../http/problem';

interface Window {
  current: number;
  previous: number;
  elapsed: number;
}

/**
 * Seconds until the sliding estimate `previous * (60 - elapsed - t) / 60 + current`
 * falls back under `limit`; 0 when it is under already.
 */
export function secondsUntilAllowed({ current, previous, elapsed }: Window, limit: number): number {
  const estimate = (previous * (60 - elapsed)) / 60 + current;
  if (estimate <= limit) return 0;
  if (current > limit || previous === 0) return Math.max(1, Math.ceil(60 - elapsed));
  const wait = 60 - elapsed - ((limit - current) * 60) / previous;
  return Math.max(1, Math.ceil(wait));
}

/**
 * Per-organization limit of the merchant interface, held in PostgreSQL so it holds across
 * instances: one counter row per organization and minute, judged on the usual sliding
 * estimate over the current and previous minute. Refused requests count too.
 */
export function merchantRateLimit(sql: Sql, perMinute: number): Middleware {
  return async (ctx, next) => {
    const orgId = ctx.state.organization.id;
    const [window] = await sql<Window[]>`
      with hit as (
        insert into merchant_rate_windows (organization_id, window_start, hits)
        values (${orgId}, date_trunc('minute', now()), 1)
        on conflict (organization_id, window_start)
          do update set hits = merchant_rate_windows.hits + 1
        returning hits
      )
      select (select hits from hit) as current,
             coalesce((select hits from merchant_rate_windows
                        where organization_id = ${orgId}
                          and window_start = date_trunc('minute', now()) - interval '1 minute'), 0) as previous,
             extract(epoch from now() - date_trunc('minute', now()))::float8 as elapsed`;
    const wait = window ? secondsUntilAllowed(window, perMinute) : 0;
    ctx.set('RateLimit-Policy', `${perMinute};w=60`);
    if (wait > 0) throw problem.rateLimited(wait);
    await next();
  };
}

/** Counters older than the previous window are of no further use. */
export async function pruneMerchantRateWindows(sql: Sql): Promise<void> {
  await sql`delete from merchant_rate_windows where window_start < now() - interval '2 minutes'`;
}
