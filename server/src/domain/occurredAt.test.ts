import { describe, expect, it } from 'vitest';
import { eventTime } from './occurredAt';

// A pure rule: no database, no server. `now` is passed in, so no clock is raced.
const now = new Date('2025-03-10T12:00:00.000Z');
const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
const DAY = 86_400_000;

describe('eventTime: the time a terminal event is recorded at', () => {
  it('is the time of receipt when the kiosk reports none', () => {
    expect(eventTime(undefined, now)).toEqual({ kind: 'at', at: now });
  });

  it('is the reported time from 7 days back to a few seconds ahead (kiosk clocks drift)', () => {
    for (const offset of [-7 * DAY, -DAY, -1, 0, 5_000]) {
      expect(eventTime(at(offset), now)).toEqual({ kind: 'at', at: new Date(at(offset)) });
    }
  });

  it('is out of range further ahead or further back, with no time to record', () => {
    for (const offset of [5_001, DAY, -7 * DAY - 1, -30 * DAY]) {
      expect(eventTime(at(offset), now)).toEqual({ kind: 'out_of_range' });
    }
  });
});
