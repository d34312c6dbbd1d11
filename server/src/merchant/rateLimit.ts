import type { Middleware } from 'koa';
import type { Sql } from '../db/connect';
import { problem } from '../http/problem';

interface Window {
  current: number;
  previous: number;
  elapsed: number;
}

/**
 * The sliding estimate of an attempt `t` seconds from now that counts itself, given the
 * window now (`current` counts the attempt just judged).
 */
export function estimateAfter({ current, previous, elapsed }: Window, t: number): number {
  const at = elapsed + t;
  if (at < 60) return (previous * (60 - at)) / 60 + current + 1;
  if (at < 120) return (current * (120 - at)) / 60 + 1;
  return 1;
}

/**
 * Seconds until the sliding estimate `previous * (60 - elapsed) / 60 + current` of an
 * attempt would be at most `limit` again, counting that attempt itself; 0 when the
 * attempt just judged was within it. After a burst that is not the end of the minute:
 * the burst then weighs as the previous minute's count and decays from there.
 */
export function secondsUntilAllowed(window: Window, limit: number): number {
  const { current, previous, elapsed } = window;
  if ((previous * (60 - elapsed)) / 60 + current <= limit) return 0;
  let wait: number;
  if (current + 1 <= limit && previous > 0) {
    // Later this minute, once enough of the previous minute has slid out.
    wait = 60 - elapsed - ((limit - current - 1) * 60) / previous;
  } else {
    // Next minute, once enough of this minute's attempts have slid out.
    wait = 60 - elapsed + Math.max(0, 60 - ((limit - 1) * 60) / current);
  }
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
