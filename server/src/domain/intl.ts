import type { Language } from '@locker/shared';

// Intl's formatters are costly to make (a PluralRules ≈20 µs, a DateTimeFormat ≈140 µs)
// and cheap to ask (≈0.5 µs): one a locale, kept.
function kept<K, V>(make: (key: K) => V): (key: K) => V {
  const made = new Map<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) made.set(key, (value = make(key)));
    return value;
  };
}

const pluralRules = kept((language: Language) => new Intl.PluralRules(language));

/** The CLDR plural category of `n` in `language` ('one', 'few', 'other', …). */
export function pluralForm(language: Language, n: number): Intl.LDMLPluralRule {
  return pluralRules(language).select(n);
}

/** A date and time written out in full in `locale` ("Friday, 27 November 2026 at 14:05"). */
export const fullDateTimeFormat = kept(
  (locale: string) => new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'short' }),
);
