/**
 * `--table`: the same result as the JSON, laid out for a person. Lists become columns,
 * a record becomes "field  value" lines, and a record's lists follow as their own tables.
 */
type Row = Record<string, unknown>;

const cell = (value: unknown): string =>
  value === null || value === undefined
    ? '-'
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

const isRows = (value: unknown): value is Row[] =>
  Array.isArray(value) &&
  value.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v));

export function columns(rows: Row[]): string {
  if (rows.length === 0) return '(none)';
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const lines = [keys, ...rows.map((r) => keys.map((k) => cell(r[k])))];
  const widths = keys.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  return lines
    .map((l) =>
      l
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function table(result: object): string {
  const entries = Object.entries(result);
  const lists = entries.filter(([, v]) => isRows(v) && v.length >= 0 && Array.isArray(v));
  const fields = entries.filter(([, v]) => !lists.some(([, l]) => l === v));
  const parts: string[] = [];
  if (fields.length > 0) {
    const width = Math.max(...fields.map(([k]) => k.length));
    parts.push(fields.map(([k, v]) => `${k.padEnd(width)}  ${cell(v)}`).join('\n'));
  }
  for (const [name, rows] of lists) {
    parts.push(
      (fields.length > 0 || lists.length > 1 ? `${name}:\n` : '') + columns(rows as Row[]),
    );
  }
  return parts.join('\n\n');
}
