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

/** Whether `value` holds a character no text column can store as sent. */
export function hasUnstorableCharacters(value: string): boolean {
  return value.includes('\u0000') || LONE_SURROGATE.test(value);
}

/**
 * A request string: any text a database column can hold exactly. Field error code
 * `invalid_characters` (in the interface's 400 `invalid_request` / 422 `validation_failed`).
 */
export function text() {
  return z.string().refine((value) => !hasUnstorableCharacters(value), {
    message: 'must not contain U+0000 or unpaired UTF-16 surrogates',
    params: { code: 'invalid_characters' },
  });
}

/** The largest value of PostgreSQL's `integer`: request integers stored as one stay below. */
export const INT4_MAX = 2_147_483_647;
