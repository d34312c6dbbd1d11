import type { Middleware } from 'koa';
import { clientOf } from '../opsApi/auth';
import { recordAttempt, type SlidingWindow } from '../ratelimit/slidingWindow';
import type { Services } from '../services';
import { answerPeople, pageHeaders } from './html';

/**
 * The recipients' pages per client address, views and extensions alike. Generous: a
 * mobile network puts many recipients behind one address, and the token (95 bits) is not
 * guessable at any rate; this only stops a flood from costing the database more than a
 * row per address.
 */
export const RECIPIENT_PAGE_LIMIT: SlidingWindow = { limit: 120, windowSeconds: 60 };

const SLOW_DOWN = [
  ['sq', 'Shumë kërkesa nga rrjeti juaj. Provoni përsëri pas një minute.'],
  ['sr', 'Previše zahteva iz Vaše mreže. Pokušajte ponovo za minut.'],
  ['tr', 'Ağınızdan çok fazla istek geldi. Bir dakika sonra tekrar deneyin.'],
  ['en', 'Too many requests from your network. Please try again in a minute.'],
] as const;

export function recipientRateLimit({ sql, config }: Services): Middleware {
  return async (ctx, next) => {
    const { address } = clientOf(ctx, config);
    const judged = await recordAttempt(
      sql,
      `address:${address ?? '-'}`,
      'recipient_page',
      RECIPIENT_PAGE_LIMIT,
    );
    if (judged.allowed) {
      await next();
      return;
    }
    pageHeaders(ctx);
    ctx.set('Retry-After', String(judged.retryAfterSeconds));
    answerPeople(ctx, 429, SLOW_DOWN);
  };
}
