import { ProblemError } from '../http/problem';

const MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
// Kiosk clocks drift; a few seconds ahead is still "now", anything more is refused.
const CLOCK_SKEW_MS = 5_000;

/**
 * The time to record for a terminal event: the reported `occurred_at` when the kiosk
 * reports late, else the time of receipt.
 */
export function eventTime(occurredAt: string | undefined, now = new Date()): Date {
  if (occurredAt === undefined) return now;
  const at = new Date(occurredAt);
  if (at.getTime() > now.getTime() + CLOCK_SKEW_MS || at.getTime() < now.getTime() - MAX_AGE_MS) {
    throw new ProblemError(
      'occurred_at_out_of_range',
      'occurred_at must not be in the future nor more than 7 days in the past.',
    );
  }
  return at;
}
