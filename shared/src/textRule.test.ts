import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as shared from './index';
import { TEXT_PATTERN, text } from './common';

type Def = Record<string, unknown> & { type: string };
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** Whether a string schema carries the text rule among its checks. */
function hasTextRule(def: Def): boolean {
  const checks = (def.checks ?? []) as { _zod: { def: { format?: string; pattern?: RegExp } } }[];
  return checks.some(
    (check) =>
      check._zod.def.format === 'regex' && check._zod.def.pattern?.source === TEXT_PATTERN.source,
  );
}

/**
 * Every string reachable from `schema`, by its path: `bare` when it is a plain `z.string()`
 * (no format such as a UUID or a date-time, and not the text rule).
 */
function walk(
  schema: unknown,
  at: string,
  found: { path: string; bare: boolean }[],
  seen = new Set<unknown>(),
): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const def = defOf(schema);
  const next = (child: unknown, suffix: string): void => walk(child, at + suffix, found, seen);
  switch (def.type) {
    case 'string':
      found.push({ path: at, bare: def.format === undefined && !hasTextRule(def) });
      return;
    case 'object':
      for (const [key, child] of Object.entries(def.shape as Record<string, unknown>))
        next(child, `.${key}`);
      if (def.catchall) next(def.catchall, '.*');
      return;
    case 'array':
      return next(def.element, '[]');
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
    case 'success':
      return next(def.innerType, '');
    case 'union':
      return (def.options as unknown[]).forEach((option, i) => next(option, `|${i}`));
    case 'intersection':
      next(def.left, '&l');
      return next(def.right, '&r');
    case 'pipe':
      next(def.in, '>in');
      return next(def.out, '>out');
    case 'record':
      next(def.keyType, '{key}');
      return next(def.valueType, '{value}');
    case 'tuple':
      return (def.items as unknown[]).forEach((item, i) => next(item, `[${i}]`));
    case 'lazy':
      return next((def.getter as () => unknown)(), '');
    default:
      // number, boolean, enum, literal, unknown, …: no text in them.
      return;
  }
}

function stringsOf(schema: z.ZodType) {
  const found: { path: string; bare: boolean }[] = [];
  walk(schema, '', found);
  return found;
}

const exportedSchemas = (Object.entries(shared) as [string, unknown][]).filter(
  (entry): entry is [string, z.ZodType] => entry[1] instanceof z.ZodType,
);

describe('one text rule for every string of every interface', () => {
  it('the walk tells a bare z.string() from the text rule, through every wrapper', () => {
    const probe = z.strictObject({
      ok: text().trim().min(1).max(5),
      id: z.guid(),
      at: z.iso.datetime(),
      nested: z.array(z.object({ bare: z.string().max(3) })).optional(),
      either: z.union([z.number(), z.string().nullable()]),
      kept: text().superRefine(() => undefined),
      regexOnly: z.string().regex(/^[a-z]+$/),
    });
    expect(stringsOf(probe)).toEqual([
      { path: '.ok', bare: false },
      { path: '.id', bare: false },
      { path: '.at', bare: false },
      { path: '.nested[].bare', bare: true },
      { path: '.either|1', bare: true },
      { path: '.kept', bare: false },
      { path: '.regexOnly', bare: true },
    ]);
  });

  it('every schema exported by shared/ uses text() or a format for each of its strings', () => {
    expect(exportedSchemas.length).toBeGreaterThan(40);
    const bare = exportedSchemas.flatMap(([name, schema]) =>
      stringsOf(schema)
        .filter((s) => s.bare)
        .map((s) => `${name}${s.path}`),
    );
    expect(bare).toEqual([]);
    const strings = exportedSchemas.flatMap(([, schema]) => stringsOf(schema));
    expect(strings.length).toBeGreaterThan(50);
  });

  it('the rule refuses U+0000 and unpaired surrogates, and keeps pairs and everything else', () => {
    const rule = text();
    for (const good of ['', 'Drita Gashi', 'Ë ë Ç ç Ş ğ', '😀 emoji', 'tab\tand\nnewline'])
      expect(rule.safeParse(good).success, JSON.stringify(good)).toBe(true);
    for (const bad of ['\u0000', 'a\u0000b', '\ud800', 'a\udfff', '\udfff\ud800', '😀\ud83d'])
      expect(rule.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    // The same answers with the `u` flag, as a JSON Schema validator reads the pattern.
    const unicode = new RegExp(TEXT_PATTERN.source, 'u');
    for (const [value, ok] of [
      ['😀x', true],
      ['x\ud800', false],
      ['\u0000', false],
    ] as const)
      expect(unicode.test(value)).toBe(ok);
  });
});
