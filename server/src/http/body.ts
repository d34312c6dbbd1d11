import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { ProblemError } from './problem';

const LIMIT = '64kb';

export const NO_BODY = Symbol('no body');

/**
 * Reads the body as JSON whatever the Content-Type says, so a client that forgot the
 * header still gets `invalid_json` or a schema error rather than a silent empty object.
 * Answers NO_BODY for an empty body.
 */
export async function readJson(ctx: Context): Promise<unknown> {
  let raw: string;
  try {
    raw = await getRawBody(ctx.req, { limit: LIMIT, encoding: 'utf8' });
  } catch {
    throw new ProblemError('invalid_json', `The body could not be read (at most ${LIMIT}).`);
  }
  ctx.state.rawBody = raw;
  if (raw.trim() === '') return NO_BODY;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new ProblemError('invalid_json', 'The body is not valid JSON.');
  }
}

declare module 'koa' {
  interface DefaultState {
    rawBody?: string;
  }
}
