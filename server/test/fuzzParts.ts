import fc from 'fast-check';

// The fuzz tests' arbitraries: strings, numbers and bodies a client should never send.

export const nastyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ maxLength: 12 }).map((s) => `${s}\u0000${s}`),
  fc.constantFrom('\ud800', 'a\udfff', '\u0000', '', ' ', '9'.repeat(80), '%00', "'; --", '😀'),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
);
export const nastyNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 53, 2 ** 63, 1e308, -0, 0.5, 1, 2),
);
export const nastyValue = fc.oneof(
  nastyString,
  nastyNumber,
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(nastyString, { maxLength: 3 }),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
);

/**
 * A body near `template`: each field kept, dropped or replaced; sometimes a stray key.
 * `own` gives a field its own values instead (one that must never be dropped, say).
 */
export function bodyNear(
  template: Record<string, unknown>,
  own: Record<string, fc.Arbitrary<unknown>> = {},
) {
  const fields = Object.fromEntries(
    Object.entries(template).map(([key, value]) => [
      key,
      own[key] ?? fc.oneof(fc.constant(value), fc.constant(undefined), nastyValue),
    ]),
  );
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.record(fields), fc.option(fc.tuple(nastyString, nastyValue)))
        .map(([body, extra]) => JSON.stringify(extra ? { ...body, [extra[0]]: extra[1] } : body)),
    },
    {
      weight: 1,
      arbitrary: fc
        .jsonValue({ maxDepth: 4 })
        // An object without a field of its own values (`{}`, say) would drop that field.
        .filter(
          (v) =>
            typeof v !== 'object' ||
            v === null ||
            Array.isArray(v) ||
            Object.keys(own).every((key) => key in v),
        )
        .map((v) => JSON.stringify(v)),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"position": 99999999999999999999999}',
        '{"code": 1e999}',
        '[]',
        '{',
        'null',
        '{"a":'.repeat(2000),
      ),
    },
  );
}

/** Percent-encodes any string, an unpaired surrogate as the invalid UTF-8 it would be. */
export function pathSegment(value: string): string {
  return [...value]
    .map((ch) => (/[\ud800-\udfff]/.test(ch) ? '%ED%A0%80' : encodeURIComponent(ch)))
    .join('');
}

/** A header of visible ASCII (anything else Node refuses before the application). */
export function header(name: string, value: string | null): Record<string, string> {
  return value === null ? {} : { [name]: value.replace(/[^\x20-\x7e]/g, '') };
}
