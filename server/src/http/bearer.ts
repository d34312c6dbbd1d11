import type { Context } from 'koa';

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,256})$/;

/** The credential of `Authorization: Bearer …`; undefined when absent or malformed. */
export function bearerToken(ctx: Context): string | undefined {
  return BEARER.exec(ctx.get('Authorization'))?.[1];
}
