import { z } from 'zod';

/** Door and parcel sizes, smallest first: a parcel fits a door of its size or larger. */
export const SIZES = ['S', 'M', 'L', 'XL'] as const;
export const SizeSchema = z.enum(SIZES);
export type Size = z.infer<typeof SizeSchema>;

/** Languages of the pickup-code SMS: Albanian, Serbian, Turkish, English. */
export const LANGUAGES = ['sq', 'sr', 'tr', 'en'] as const;
export const LanguageSchema = z.enum(LANGUAGES);
export type Language = z.infer<typeof LanguageSchema>;

/**
 * A late report's time: ISO 8601 with an offset (`Z` or `+02:00`). The range rule (not in
 * the future, at most 7 days old) is checked by the server at receipt, not here.
 */
export const OccurredAtSchema = z.iso.datetime({ offset: true });
