import type { Language } from '@locker/shared';

export interface PickupSmsFacts {
  firstName: string;
  trackingNumber: string;
  stationName: string;
  code: string;
  hours: number;
}

/** "72 hours" in the grammatical case each sentence below needs. */
function hoursPhrase(language: Language, hours: number): string {
  const form = new Intl.PluralRules(language).select(hours);
  switch (language) {
    case 'en':
      return `${hours} ${form === 'one' ? 'hour' : 'hours'}`;
    case 'sq': // genitive after "brenda": 1 ore, 72 orëve
      return `${hours} ${form === 'one' ? 'ore' : 'orëve'}`;
    case 'sr': // genitive after "u roku od": 1 sata, 72 sata, 48 sati
      return `${hours} ${form === 'other' ? 'sati' : 'sata'}`;
    case 'tr': // Turkish keeps the noun singular after a number
      return `${hours} saat`;
    default: {
      const unknown: never = language;
      throw new Error(`no SMS text for ${String(unknown)}`);
    }
  }
}

/** The pickup-code SMS, written for each recipient language. */
export function pickupSms(language: Language, f: PickupSmsFacts): string {
  const within = hoursPhrase(language, f.hours);
  switch (language) {
    case 'en':
      return `Hello ${f.firstName}, your parcel ${f.trackingNumber} is waiting for you at the parcel locker ${f.stationName}. Your pickup code is ${f.code}. Please collect it within ${within}.`;
    case 'sq':
      return `Përshëndetje ${f.firstName}, pakoja juaj ${f.trackingNumber} ju pret në stacionin e pakove ${f.stationName}. Kodi juaj për tërheqje është ${f.code}. Ju lutemi tërhiqeni brenda ${within}.`;
    case 'sr':
      return `Zdravo ${f.firstName}, Vaš paket ${f.trackingNumber} čeka Vas u paketomatu ${f.stationName}. Vaš kod za preuzimanje je ${f.code}. Molimo Vas da ga preuzmete u roku od ${within}.`;
    case 'tr':
      return `Merhaba ${f.firstName}, ${f.trackingNumber} numaralı kargonuz ${f.stationName} kargo dolabında sizi bekliyor. Teslim alma kodunuz: ${f.code}. Lütfen kargonuzu ${within} içinde teslim alın.`;
    default: {
      const unknown: never = language;
      throw new Error(`no SMS text for ${String(unknown)}`);
    }
  }
}

/** What stays in the outbox once sent: the text without the code. */
export function redactCodes(text: string): string {
  return text.replace(/\b\d{8}\b/g, '********');
}
