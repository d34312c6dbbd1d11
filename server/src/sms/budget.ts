// An SMS's cost in segments, as carriers count them: GSM-7 when every character is in
// the GSM 03.38 basic set (160 characters in one segment, 153 a segment once split, an
// extension character counting two), else UCS-2 (70, then 67 a segment; characters
// outside the BMP count two).

const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM_EXTENSION = new Set('^{}\\[~]|€\f');

export function smsSegments(text: string): {
  encoding: 'gsm7' | 'ucs2';
  units: number;
  segments: number;
} {
  const chars = [...text];
  if (chars.every((c) => GSM_BASIC.has(c) || GSM_EXTENSION.has(c))) {
    const units = chars.reduce((n, c) => n + (GSM_EXTENSION.has(c) ? 2 : 1), 0);
    return { encoding: 'gsm7', units, segments: units <= 160 ? 1 : Math.ceil(units / 153) };
  }
  const units = text.length; // UTF-16 code units
  return { encoding: 'ucs2', units, segments: units <= 70 ? 1 : Math.ceil(units / 67) };
}

/**
 * The pickup-code SMS's budget per language: what it cost before it carried the link to
 * the recipient's page (a 16-character station name, 72 hours), kept since.
 */
export const PICKUP_SMS_SEGMENTS = { en: 2, sq: 3, sr: 3, tr: 3 } as const;
