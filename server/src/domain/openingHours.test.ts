import { describe, expect, it } from 'vitest';
import { parseOpeningHours } from './openingHours';

describe('parseOpeningHours', () => {
  it('reads 24/7 as every day from midnight to midnight', () => {
    expect(parseOpeningHours(' 24/7 ')).toEqual([
      { days: ['mo', 'tu', 'we', 'th', 'fr', 'sa', 'su'], opens: '00:00', closes: '24:00' },
    ]);
  });

  it('reads ranges, lists and several spans a day', () => {
    expect(parseOpeningHours('Mo-Fr 08:00-20:00; sa,su 09:00-12:00,15:00-18:00')).toEqual([
      { days: ['mo', 'tu', 'we', 'th', 'fr'], opens: '08:00', closes: '20:00' },
      { days: ['sa', 'su'], opens: '09:00', closes: '12:00' },
      { days: ['sa', 'su'], opens: '15:00', closes: '18:00' },
    ]);
  });

  it.each([
    ['', /empty/],
    ['xx 08:00-20:00', /not a day/],
    ['fr-mo 08:00-20:00', /not a day/],
    ['mo-fr 20:00-08:00', /closing after opening/],
    ['mo-fr 8-20', /HH:MM/],
    ['mo-fr', /DAYS HH:MM-HH:MM/],
  ])('refuses "%s", saying why', (spec, why) => {
    expect(() => parseOpeningHours(spec)).toThrow(why);
  });
});
