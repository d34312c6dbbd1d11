import type { Middleware } from 'koa';
import type { Logger } from '../logger';

declare module 'koa' {
  interface DefaultState {
    log: Logger;
  }
}

/** One child logger per request carrying its correlation id; one line per request. */
export function requestLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    ctx.state.log = logger.child({ correlation_id: ctx.state.correlationId });
    try {
      await next();
    } finally {
      ctx.state.log.info(
        {
          method: ctx.method,
          // A recipient's link is a credential: its token is never logged.
          path: ctx.path.replace(/^\/p\/[^/]*/, '/p/…'),
          status: ctx.status,
          ms: Math.round(performance.now() - started),
        },
        'request',
      );
    }
  };
}
