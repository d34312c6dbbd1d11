// Times as operators read them: relative ("12 min ago"), the exact time in their own time
// zone beside it on hover and focus.

export function exactTime(iso: string, zone: string, language: string): string {
  return new Intl.DateTimeFormat(language, {
    dateStyle: 'medium',
    timeStyle: 'medium',
    timeZone: zone,
  }).format(new Date(iso));
}

export function shortTime(iso: string, zone: string, language: string): string {
  return new Intl.DateTimeFormat(language, {
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: zone,
  }).format(new Date(iso));
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

export function relativeTime(iso: string, now: number, language: string): string {
  const difference = new Date(iso).getTime() - now;
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'auto', style: 'short' });
  for (const [unit, ms] of UNITS) {
    if (Math.abs(difference) >= ms || unit === 'second') {
      const amount = Math.round(difference / ms);
      if (unit === 'second' && Math.abs(amount) < 10) return format.format(0, 'second');
      return format.format(amount, unit);
    }
  }
  return '';
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
