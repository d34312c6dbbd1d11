import type { Context, Middleware } from 'koa';
import type { Sql } from '../db/connect';
import { problem } from '../http/problem';
import type { Logger } from '../logger';
import { noteLimitHit, type AlarmPolicy } from '../ratelimit/bruteForceAlarm';
import { recordAttempt, type Judgement, type SlidingWindow } from '../ratelimit/slidingWindow';

export type TerminalBucket = 'pickup' | 'return' | 'courier';

/**
 * A terminal at its limit in 3 of the last 5 minutes is being used to guess (codes,
 * tracking or courier numbers): a kiosk in honest use never comes close.
 */
const BRUTE_FORCE: AlarmPolicy = { hitMinutes: 3, ofLastMinutes: 5 };

/**
 * Sliding-window limit per terminal (spec, "Limits"): every attempt counts, refused ones
 * included, and the window is shared by every server instance. Sustained refusals raise
 * one operator alert per episode (`alerts` row, log line `"alert":"<bucket>_brute_force"`).
 */
export function rateLimit(sql: Sql, bucket: TerminalBucket, perMinute: number): Middleware {
  const window = windowOf(perMinute);
  return async (ctx, next) => {
    await countAttempt(sql, ctx, bucket, window);
    await next();
  };
}

/**
 * Records the terminal's attempt in `bucket` and refuses it past the limit (the spec's
 * 429). For a route that judges its attempts inside its own read (`attemptQuery`), the
 * attempts that make no read: a malformed one, or one of a terminal with no station.
 */
export async function countAttempt(
  sql: Sql,
  ctx: Context,
  bucket: TerminalBucket,
  window: SlidingWindow,
): Promise<void> {
  const judged = await recordAttempt(sql, ctx.state.terminal.id, bucket, window, undefined, {
    soft: true,
  });
  await refuseOverLimit(sql, ctx, bucket, judged);
}

/** A terminal's sliding window: `perMinute` attempts in any 60 s. */
export const windowOf = (perMinute: number): SlidingWindow => ({
  limit: perMinute,
  windowSeconds: 60,
});

/**
 * Throws the spec's 429 for an attempt judged over the limit, after noting the hit for
 * the brute-force alarm; does nothing for an allowed one. For a route that judges the
 * attempt inside its own statement (`attemptQuery`) rather than with `rateLimit`.
 */
export async function refuseOverLimit(
  sql: Sql,
  ctx: Context,
  bucket: TerminalBucket,
  judged: Judgement,
): Promise<void> {
  if (judged.allowed) return;
  const terminal = ctx.state.terminal;
  if (judged.lastLimitedMinute !== judged.minute) {
    const raise = await noteLimitHit(sql, terminal.id, bucket, judged.minute, BRUTE_FORCE);
    if (raise) await raiseAlarm(sql, ctx.state.log, terminal.id, terminal.station?.id, bucket);
  }
  throw problem.rateLimited(judged.retryAfterSeconds);
}

async function raiseAlarm(
  sql: Sql,
  logger: Logger,
  terminalId: string,
  stationId: string | undefined,
  bucket: TerminalBucket,
): Promise<void> {
  const kind = `${bucket}_brute_force`;
  const message = `${bucket} limit hit in ${BRUTE_FORCE.hitMinutes} of the last ${BRUTE_FORCE.ofLastMinutes} minutes: someone may be guessing at this terminal`;
  await sql`
    insert into alerts (kind, terminal_id, station_id, message)
    values (${kind}, ${terminalId}, ${stationId ?? null}, ${message})`;
  // Operations' monitoring matches `alert: "<bucket>_brute_force"`.
  logger.warn({ alert: kind, terminal_id: terminalId, station_id: stationId }, message);
}
