import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

const ACCEPTED = /^[A-Za-z0-9._-]{8,64}$/;

declare module 'koa' {
  interface DefaultState {
    correlationId: string;
  }
}

/** Echoes a well-formed `X-Correlation-ID`, else makes one; every answer carries it. */
export const correlationId: Middleware = async (ctx, next) => {
  const sent = ctx.get('X-Correlation-ID');
  ctx.state.correlationId = ACCEPTED.test(sent) ? sent : randomUUID();
  ctx.set('X-Correlation-ID', ctx.state.correlationId);
  await next();
};
