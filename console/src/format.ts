import type { TFunction } from 'i18next';

// Times as operators read them: relative ("12 min ago"), the exact time in their own time
// zone beside it on hover and focus.

/**
 * The exact time in the operator's zone. Browsers carry date texts for few languages
 * (Chromium has none for Albanian), so Albanian gets the numeric form used there
 * (25.11.2026 13:11:09); English the British one (25 Nov 2026, 13:11:09). The zone is
 * always honoured.
 */
export function exactTime(iso: string, zone: string, language: string): string {
  const date = new Date(iso);
  if (language === 'en')
    return new Intl.DateTimeFormat('en-GB', {
      dateStyle: 'medium',
      timeStyle: 'medium',
      timeZone: zone,
    }).format(date);
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(date);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('day')}.${get('month')}.${get('year')} ${get('hour')}:${get('minute')}:${get('second')}`;
}

const UNITS: ['day' | 'hour' | 'minute' | 'second', number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/**
 * "12 min ago", "in 3 days", "now": from the console's own texts (i18next plurals), not
 * the browser's Intl, which lacks Albanian in Chromium.
 */
export function relativeTime(iso: string, now: number, t: TFunction): string {
  const difference = new Date(iso).getTime() - now;
  const size = Math.abs(difference);
  if (size < 10_000) return t('time.now');
  const [unit, ms] = UNITS.find(([, unitMs]) => size >= unitMs) ?? UNITS[3]!;
  const count = Math.floor(size / ms);
  return difference < 0 ? t(`time.ago.${unit}`, { count }) : t(`time.in.${unit}`, { count });
}

/** Whole days from `iso` to now (0 on the same day), for "overdue by N days". */
export function daysSince(iso: string, now: number): number {
  return Math.max(0, Math.floor((now - new Date(iso).getTime()) / 86_400_000));
}

export function number(value: number, language: string): string {
  return new Intl.NumberFormat(language).format(value);
}

/**
 * A wall-clock time typed in `zone` (an `<input type="datetime-local">` value) as an ISO
 * instant: the zone's offset at that moment, found by formatting a guess back.
 */
export function zonedToIso(local: string, zone: string): string {
  const asUtc = new Date(`${local}:00Z`).getTime();
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(asUtc));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const shown = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'));
  return new Date(asUtc - (shown - asUtc)).toISOString();
}

/** CSV of rows (RFC 4180 quoting), for the exports made in the browser. */
export function csv(rows: (string | number | null)[][]): string {
  const cell = (value: string | number | null) => {
    const text = value === null ? '' : String(value);
    // A leading =, +, - or @ would be a formula in a spreadsheet.
    const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
    return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return rows.map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}

export function download(name: string, text: string, type = 'text/csv;charset=utf-8') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
