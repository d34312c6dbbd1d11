import { describe, expect, it } from 'vitest';
import { pluralForm } from './intl';

describe('pluralForm', () => {
  it('answers each language’s CLDR category, the same when asked again', () => {
    for (let round = 0; round < 2; round++) {
      expect([1, 2, 72].map((n) => pluralForm('en', n))).toEqual(['one', 'other', 'other']);
      // Serbian: 1 sat, 2–4 and 72 sata (few), 5–20 and 48 sati.
      expect([1, 3, 72, 48, 11].map((n) => pluralForm('sr', n))).toEqual([
        'one',
        'few',
        'few',
        'other',
        'other',
      ]);
      expect([1, 72].map((n) => pluralForm('sq', n))).toEqual(['one', 'other']);
      expect([1, 72].map((n) => pluralForm('tr', n))).toEqual(['one', 'other']);
    }
  });
});
