const MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
// Kiosk clocks drift; a few seconds ahead is still "now", anything more is refused.
const CLOCK_SKEW_MS = 5_000;

/** When a terminal event happened, or why the time it reported cannot be recorded. */
export type EventTime = { kind: 'at'; at: Date } | { kind: 'out_of_range' };

/**
 * The time to record for a terminal event: the reported `occurred_at` when the kiosk
 * reports late, else the time of receipt. A reported time in the future (beyond a few
 * seconds of drift) or more than 7 days past is out of range.
 */
export function eventTime(occurredAt: string | undefined, now = new Date()): EventTime {
  if (occurredAt === undefined) return { kind: 'at', at: now };
  const at = new Date(occurredAt);
  if (at.getTime() > now.getTime() + CLOCK_SKEW_MS || at.getTime() < now.getTime() - MAX_AGE_MS)
    return { kind: 'out_of_range' };
  return { kind: 'at', at };
}
