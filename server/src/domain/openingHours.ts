import { OpeningSpanSchema, WEEKDAYS, type OpeningSpan, type Weekday } from '@locker/shared';

/**
 * Opening hours as an operator types them: `24/7`, or spans separated by `;`, each days
 * then times, e.g. `mo-fr 08:00-20:00; sa 09:00-14:00; su 10:00-12:00,15:00-18:00`.
 * Days are two letters (mo tu we th fr sa su), ranges (`mo-fr`) or lists (`mo,we,fr`);
 * 24:00 is midnight. Answers the spans, or throws an Error naming what is wrong.
 */
export function parseOpeningHours(spec: string): OpeningSpan[] {
  const trimmed = spec.trim().toLowerCase();
  if (trimmed === '24/7') return [{ days: [...WEEKDAYS], opens: '00:00', closes: '24:00' }];
  if (trimmed === '')
    throw new Error('opening hours are empty (say 24/7, or e.g. mo-fr 08:00-20:00)');
  return trimmed.split(';').flatMap((part) => spansOf(part.trim()));
}

function spansOf(part: string): OpeningSpan[] {
  const match = /^([a-z,-]+)\s+([\d:,\s-]+)$/.exec(part);
  if (!match) throw new Error(`"${part}" is not DAYS HH:MM-HH:MM, e.g. mo-fr 08:00-20:00`);
  const days = daysOf(match[1]!);
  return match[2]!.split(',').map((range) => {
    const [opens, closes, extra] = range.trim().split('-');
    const parsed = OpeningSpanSchema.safeParse({ days, opens, closes });
    if (extra !== undefined || !parsed.success) {
      throw new Error(`"${range.trim()}" in "${part}" is not HH:MM-HH:MM, closing after opening`);
    }
    return parsed.data;
  });
}

function daysOf(text: string): Weekday[] {
  const days = new Set<Weekday>();
  for (const item of text.split(',')) {
    const [from, to, extra] = item.split('-') as [string, string | undefined, string | undefined];
    const start = WEEKDAYS.indexOf(from as Weekday);
    const end = to === undefined ? start : WEEKDAYS.indexOf(to as Weekday);
    if (start < 0 || end < 0 || extra !== undefined || end < start) {
      throw new Error(`"${item}" is not a day (mo tu we th fr sa su) or a range such as mo-fr`);
    }
    for (let i = start; i <= end; i++) days.add(WEEKDAYS[i]!);
  }
  return WEEKDAYS.filter((d) => days.has(d));
}
