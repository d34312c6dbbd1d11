import type { Middleware } from 'koa';
import type { Sql } from '../db/connect';
import { problem } from '../http/problem';

const WINDOW_SECONDS = 60;

/**
 * Sliding-window limit per terminal, held in PostgreSQL so it holds across server
 * instances. Every attempt counts, refused ones included, as the spec says.
 */
export function rateLimit(sql: Sql, bucket: 'pickup' | 'return', perMinute: number): Middleware {
  return async (ctx, next) => {
    const terminalId = ctx.state.terminal.id;
    const retryAfter = await sql.begin(async (tx) => {
      // Serialises one terminal's attempts so two parallel ones cannot both see room.
      await tx`select pg_advisory_xact_lock(hashtextextended(${terminalId + bucket}, 0))`;
      await tx`insert into rate_limit_hits (terminal_id, bucket) values (${terminalId}, ${bucket})`;
      const hits = await tx<{ at: Date; age_ms: number }[]>`
        select at, extract(epoch from clock_timestamp() - at) * 1000 as age_ms
          from rate_limit_hits
         where terminal_id = ${terminalId} and bucket = ${bucket}
           and at > clock_timestamp() - make_interval(secs => ${WINDOW_SECONDS})
         order by at`;
      if (hits.length <= perMinute) return 0;
      // The next attempt is allowed once fewer than `perMinute` hits remain in the window,
      // i.e. when the (n - perMinute + 1)-th oldest, counting the next attempt, has aged out.
      const expiring = hits[hits.length - perMinute];
      const waitMs = WINDOW_SECONDS * 1000 - Number(expiring?.age_ms ?? 0);
      return Math.max(1, Math.ceil(waitMs / 1000));
    });
    if (retryAfter > 0) throw problem.rateLimited(retryAfter);
    await next();
  };
}
