import { describe, expect, it } from 'vitest';
import { csv, daysSince, exactTime, zonedToIso } from './format';

describe('times in the operator’s zone', () => {
  it('reads a wall-clock time typed in a zone as the right instant, summer and winter', () => {
    expect(zonedToIso('2026-07-01T09:30', 'Europe/Belgrade')).toBe('2026-07-01T07:30:00.000Z');
    expect(zonedToIso('2026-01-15T09:30', 'Europe/Belgrade')).toBe('2026-01-15T08:30:00.000Z');
    expect(zonedToIso('2026-01-15T09:30', 'UTC')).toBe('2026-01-15T09:30:00.000Z');
  });

  it('shows the exact time in the zone: numeric for Albanian, British for English', () => {
    const at = '2026-11-25T12:11:09.000Z';
    expect(exactTime(at, 'Europe/Tirane', 'sq')).toBe('25.11.2026 13:11:09');
    expect(exactTime(at, 'UTC', 'sq')).toBe('25.11.2026 12:11:09');
    expect(exactTime(at, 'Europe/Tirane', 'en')).toBe('25 Nov 2026, 13:11:09');
  });

  it('counts whole days since a time', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(daysSince('2026-11-25T01:00:00Z', now)).toBe(0);
    expect(daysSince('2026-11-22T11:00:00Z', now)).toBe(3);
  });
});

describe('CSV made in the browser', () => {
  it('quotes what needs quoting and defuses spreadsheet formulas', () => {
    expect(csv([['a', 'b,c', 'say "hi"', null, 3]])).toBe('a,"b,c","say ""hi""",,3\r\n');
    expect(csv([['=HYPERLINK("x")', '+1', '-2', '@SUM']])).toBe(
      `"'=HYPERLINK(""x"")",'+1,'-2,'@SUM\r\n`,
    );
  });
});
