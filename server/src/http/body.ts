import type { IncomingMessage } from 'node:http';
import type { Context, Middleware } from 'koa';
import getRawBody from 'raw-body';
import { ProblemError } from './problem';

/** Every body either interface accepts is far smaller (a shipment is under 1 kB). */
export const BODY_LIMIT_BYTES = 64 * 1024;

export const NO_BODY = Symbol('no body');

const CLOSE = { Connection: 'close' };

function tooLarge(): ProblemError {
  return new ProblemError(
    'payload_too_large',
    `The body is larger than ${BODY_LIMIT_BYTES} bytes.`,
    undefined,
    CLOSE,
  );
}

/** Whether the request announces a body (a length above zero, or chunks). */
function announcesBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * Reads the body as JSON whatever the Content-Type says, so a client that forgot the
 * header still gets `invalid_json` or a schema error rather than a silent empty object.
 * Answers NO_BODY for an empty body. A body announced or found larger than the limit is
 * refused with 413 before (or as soon as) the limit is passed, and the connection closed:
 * the rest of it is never read.
 */
export async function readJson(ctx: Context): Promise<unknown> {
  const announced = ctx.req.headers['content-length'];
  if (announced !== undefined && Number(announced) > BODY_LIMIT_BYTES) throw tooLarge();
  let raw: string;
  try {
    raw = await getRawBody(ctx.req, {
      limit: BODY_LIMIT_BYTES,
      length: announced,
      encoding: 'utf8',
    });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') throw tooLarge();
    throw new ProblemError('invalid_json', 'The body could not be read.', undefined, CLOSE);
  }
  ctx.state.rawBody = raw;
  if (raw.trim() === '') return NO_BODY;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new ProblemError('invalid_json', 'The body is not valid JSON.');
  }
}

/**
 * A request answered without the application having read its body (refused by
 * authentication, a GET with a body, an unknown route) gets `Connection: close`:
 * otherwise Node would read and discard the whole body, however large, to keep the
 * connection alive. Whether the body happened to have arrived meanwhile does not count:
 * it would tell a refusal that waited for the database (a body there by then, keep-alive)
 * from one that did not (issue 22).
 */
export const closeUnreadBodies: Middleware = async (ctx, next) => {
  try {
    await next();
  } finally {
    if (announcesBody(ctx.req) && ctx.state.rawBody === undefined) ctx.set('Connection', 'close');
  }
};

declare module 'koa' {
  interface DefaultState {
    rawBody?: string;
  }
}
