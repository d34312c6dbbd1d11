import { describe, expect, it } from 'vitest';
import type { Sql } from '../db/connect';
import { DEPOSIT_SET_KEPT_MS, DepositSetEtags, utcDay } from './depositSetEtags';

const STATION = 'a3c1e0b2-0000-4000-8000-000000000001';
const OTHER = 'a3c1e0b2-0000-4000-8000-000000000002';

function etags() {
  let now = Date.UTC(2026, 10, 30, 12);
  const kept = new DepositSetEtags(undefined as unknown as Sql, () => now);
  return { kept, later: (ms: number) => (now += ms) };
}

describe('DepositSetEtags', () => {
  it('keeps what a read found for its cabinet version and day, for at most 15 minutes', () => {
    const { kept, later } = etags();
    expect(kept.of(STATION, '7', 1)).toBeUndefined();
    const read = kept.begin(STATION);
    expect(kept.of(STATION, '7', 1)).toBeUndefined();
    kept.keep(STATION, read, { etag: '"a"', cabinetVersion: '7', day: 1 });
    expect(kept.of(STATION, '7', 1)).toBe('"a"');
    expect(kept.of(STATION, '8', 1)).toBeUndefined();
    expect(kept.of(STATION, '7', 2)).toBeUndefined();
    expect(kept.of(OTHER, '7', 1)).toBeUndefined();
    later(DEPOSIT_SET_KEPT_MS);
    expect(kept.of(STATION, '7', 1)).toBe('"a"');
    later(1);
    expect(kept.of(STATION, '7', 1)).toBeUndefined();
  });

  it("forgets a station's on its booking notice, and every station's on a courier's", () => {
    const { kept } = etags();
    for (const station of [STATION, OTHER])
      kept.keep(station, kept.begin(station), { etag: station, cabinetVersion: '1', day: 1 });
    kept.forget(STATION);
    expect(kept.of(STATION, '1', 1)).toBeUndefined();
    expect(kept.of(OTHER, '1', 1)).toBe(OTHER);
    kept.forgetAll();
    expect(kept.of(OTHER, '1', 1)).toBeUndefined();
  });

  it('does not keep a read its station was announced changed during (it may predate the change)', () => {
    const { kept } = etags();
    const read = kept.begin(STATION);
    kept.forget(STATION);
    kept.keep(STATION, read, { etag: '"stale"', cabinetVersion: '1', day: 1 });
    expect(kept.of(STATION, '1', 1)).toBeUndefined();

    const beforeAll = kept.begin(STATION);
    kept.forgetAll();
    kept.keep(STATION, beforeAll, { etag: '"stale"', cabinetVersion: '1', day: 1 });
    expect(kept.of(STATION, '1', 1)).toBeUndefined();

    // Of two reads side by side, only the later one's answer is kept.
    const first = kept.begin(STATION);
    const second = kept.begin(STATION);
    kept.keep(STATION, first, { etag: '"first"', cabinetVersion: '1', day: 1 });
    expect(kept.of(STATION, '1', 1)).toBeUndefined();
    kept.keep(STATION, second, { etag: '"second"', cabinetVersion: '1', day: 1 });
    expect(kept.of(STATION, '1', 1)).toBe('"second"');
  });

  it('counts days in UTC', () => {
    expect(utcDay(Date.UTC(1970, 0, 1, 23, 59, 59, 999))).toBe(0);
    expect(utcDay(Date.UTC(1970, 0, 2))).toBe(1);
    expect(utcDay(Date.UTC(2026, 10, 30, 0, 30))).toBe(utcDay(Date.UTC(2026, 10, 30, 23, 30)));
  });
});
