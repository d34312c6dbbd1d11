import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateAfter, secondsUntilAllowed } from './rateLimit';

const windows = fc.record({
  previous: fc.integer({ min: 0, max: 20_000 }),
  current: fc.integer({ min: 1, max: 20_000 }),
  elapsed: fc.double({ min: 0, max: 59.999, noNaN: true }),
});

describe('merchant Retry-After', () => {
  it('after a burst, names a wait after which a retry is allowed, and no shorter one', () => {
    fc.assert(
      fc.property(windows, fc.integer({ min: 1, max: 1200 }), (window, limit) => {
        const wait = secondsUntilAllowed(window, limit);
        if (wait === 0) return;
        expect(estimateAfter(window, wait)).toBeLessThanOrEqual(limit + 1e-9);
        if (wait > 1) expect(estimateAfter(window, wait - 1)).toBeGreaterThan(limit);
      }),
      { numRuns: 20_000 },
    );
  });

  it('sends a burst of 5000 at a limit of 1200 past the end of the next minute', () => {
    // 10 s into the minute, 5000 requests: the next minute starts with the burst as its
    // previous count, which must decay to 1199 first: 60 - 1199 * 60 / 5000 = 45.6 s in.
    expect(secondsUntilAllowed({ previous: 0, current: 5000, elapsed: 10 }, 1200)).toBe(96);
  });
});
