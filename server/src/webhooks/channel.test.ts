import { describe, expect, it } from 'vitest';
import { RETRY_SCHEDULE_SECONDS, retryAfterSeconds } from './channel';

describe('webhook retry policy', () => {
  it('spans about three days', () => {
    const hours = RETRY_SCHEDULE_SECONDS.reduce((a, b) => a + b, 0) / 3600;
    expect(hours).toBeGreaterThan(60);
    expect(hours).toBeLessThan(80);
  });

  it('reads Retry-After as seconds or an HTTP date, bounded to 1 s .. 24 h', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(retryAfterSeconds('30', now)).toBe(30);
    expect(retryAfterSeconds('Sun, 22 Nov 2026 10:02:00 GMT', now)).toBe(120);
    expect(retryAfterSeconds('0', now)).toBe(1);
    expect(retryAfterSeconds('999999', now)).toBe(86_400);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
  });
});
