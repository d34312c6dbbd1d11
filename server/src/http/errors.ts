import type { Middleware } from 'koa';
import type { Logger } from '../logger';
import { ProblemError } from './problem';

/**
 * Renders every failure as problem details. Anything not a ProblemError is logged with
 * its stack and answered as a bare `internal_error`: no stack, SQL or message leaks.
 */
export function problemResponses(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ProblemError('not_found');
      if (ctx.status === 405 && ctx.body === undefined) throw new ProblemError('not_found');
    } catch (error) {
      const log = ctx.state.log as Logger | undefined;
      const answer = error instanceof ProblemError ? error : new ProblemError('internal_error');
      if (!(error instanceof ProblemError)) log?.error({ err: error }, 'unhandled error');
      ctx.status = answer.status;
      for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
      ctx.type = 'application/problem+json';
      ctx.body = JSON.stringify(answer.body(ctx.state.correlationId));
    }
  };
}
