import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';

// RFC 9110 §11.1: the scheme is case-insensitive; one or more spaces before the token.
const BEARER = /^bearer +([A-Za-z0-9._~+/=-]{1,256})$/i;

/**
 * The credential of `Authorization: Bearer …`; undefined when absent, malformed or sent
 * twice (Node would keep the first; which one the sender meant is anyone's guess).
 */
export function bearerToken(ctx: Context): string | undefined {
  return bearerOf(ctx.req);
}

/** The same, from Node's request (the live link's upgrade never reaches Koa). */
export function bearerOf(req: IncomingMessage): string | undefined {
  const sent = req.headersDistinct.authorization;
  if (!sent || sent.length !== 1) return undefined;
  return BEARER.exec(sent[0]!)?.[1];
}
