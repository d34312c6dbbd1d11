import { z } from 'zod';

/** Door and parcel sizes, smallest first: a parcel fits a door of its size or larger. */
export const SIZES = ['S', 'M', 'L', 'XL'] as const;
export const SizeSchema = z.enum(SIZES);
export type Size = z.infer<typeof SizeSchema>;

/**
 * A shipment's statuses (the merchant interface's, and the console's). Here rather than in
 * merchant.ts, so that what reads only the operations shapes (the console's bundle) does
 * not take in the phone-number metadata the merchant schemas validate with.
 */
export const SHIPMENT_STATUSES = [
  'booked',
  'ready_for_pickup',
  'collected',
  'return_started',
  'returned_to_locker',
  'return_collected',
  // Extension (issue 27): a booking cancelled before its deposit.
  'cancelled',
] as const;

/** Languages of the pickup-code SMS: Albanian, Serbian, Turkish, English. */
export const LANGUAGES = ['sq', 'sr', 'tr', 'en'] as const;
export const LanguageSchema = z.enum(LANGUAGES);
export type Language = z.infer<typeof LanguageSchema>;

/**
 * A late report's time: ISO 8601 with an offset (`Z` or `+02:00`). The range rule (not in
 * the future, at most 7 days old) is checked by the server at receipt, not here.
 */
export const OccurredAtSchema = z.iso.datetime({ offset: true });

// U+0000, or a UTF-16 surrogate without its other half: neither can be stored as text
// (PostgreSQL refuses the first; the second would be silently replaced by U+FFFD).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The text rule as one pattern: no U+0000, every surrogate in a pair. Written so that it
 * means the same with and without the `u` flag (JSON Schema validators use `u`), and as an
 * unrolled loop (linear, no backtracking on long strings). It is the `pattern` of every
 * string of the OpenAPI document that carries text.
 */
export const TEXT_PATTERN =
  // eslint-disable-next-line no-control-regex -- U+0000 is exactly what the rule refuses
  /^[^\u0000\uD800-\uDFFF]*(?:[\uD800-\uDBFF][\uDC00-\uDFFF][^\u0000\uD800-\uDFFF]*)*$/;

/** Whether `value` holds a character no text column can store as sent. */
export function hasUnstorableCharacters(value: string): boolean {
  return value.includes('\u0000') || LONE_SURROGATE.test(value);
}

const TEXT_MESSAGE = 'must not contain U+0000 or unpaired UTF-16 surrogates';

/**
 * The one text rule: every string of every interface (request and answer) is `text()` or a
 * narrower format (a UUID, a date-time, an enum); shared/src/textRule.test.ts fails on a
 * bare `z.string()`. Refused: any text a database column cannot hold exactly. Field error
 * code `invalid_characters` (in the interface's 400 `invalid_request` / 422
 * `validation_failed`).
 */
export function text() {
  return z.string().regex(TEXT_PATTERN, TEXT_MESSAGE);
}

/** Whether a zod issue is the text rule's refusal (its field error code is `invalid_characters`). */
export function isTextRuleIssue(issue: { code: string; pattern?: unknown }): boolean {
  return issue.code === 'invalid_format' && issue.pattern === String(TEXT_PATTERN);
}

/** The largest value of PostgreSQL's `integer`: request integers stored as one stay below. */
export const INT4_MAX = 2_147_483_647;
