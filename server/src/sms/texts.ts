import type { Language } from '@locker/shared';
import { pluralForm } from '../domain/intl';

export interface PickupSmsFacts {
  firstName: string;
  trackingNumber: string;
  stationName: string;
  code: string;
  hours: number;
  /** The recipient's page: the code as a QR code, the door's size, until when. */
  link: string;
}

/** "72 hours" in the grammatical case each sentence below needs. */
function hoursPhrase(language: Language, hours: number): string {
  const form = pluralForm(language, hours);
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

/**
 * The pickup-code SMS, written for each recipient language, with the link to the
 * recipient's page. Kept within the length budget it had before the link (2 GSM-7
 * segments in English; 3 UCS-2 segments in Albanian, Serbian and Turkish, whose letters
 * need UCS-2) for a station name of 16 characters and a PUBLIC_URL of 27 (sms/budget.ts,
 * tested): the sentences were made shorter to make room.
 */
export function pickupSms(language: Language, f: PickupSmsFacts): string {
  const within = hoursPhrase(language, f.hours);
  switch (language) {
    case 'en':
      return `Hello ${f.firstName}, your parcel ${f.trackingNumber} is waiting at the parcel locker ${f.stationName}. Your pickup code is ${f.code}. Please collect it within ${within}. Code as a QR, door and hours: ${f.link}`;
    case 'sq':
      return `Përshëndetje ${f.firstName}, pakoja ${f.trackingNumber} ju pret në stacionin e pakove ${f.stationName}. Kodi: ${f.code}. Tërhiqeni brenda ${within}. Kodi QR: ${f.link}`;
    case 'sr':
      return `Zdravo ${f.firstName}, paket ${f.trackingNumber} Vas čeka u paketomatu ${f.stationName}. Kod: ${f.code}. Preuzmite ga u roku od ${within}. QR kod: ${f.link}`;
    case 'tr':
      return `Merhaba ${f.firstName}, ${f.trackingNumber} numaralı kargonuz ${f.stationName} kargo dolabında. Kod: ${f.code}. ${within} içinde teslim alın. QR kod: ${f.link}`;
    default: {
      const unknown: never = language;
      throw new Error(`no SMS text for ${String(unknown)}`);
    }
  }
}

export interface DisregardSmsFacts {
  firstName: string;
  trackingNumber: string;
  stationName: string;
}

/** Sent when a deposit is undone after its pickup code may have reached the recipient. */
export function disregardCodeSms(language: Language, f: DisregardSmsFacts): string {
  switch (language) {
    case 'en':
      return `Hello ${f.firstName}, please disregard the pickup code we sent for your parcel ${f.trackingNumber}: it is not in the parcel locker ${f.stationName} yet. You will get a new code as soon as it is.`;
    case 'sq':
      return `Përshëndetje ${f.firstName}, ju lutemi mos e merrni parasysh kodin e tërheqjes që ju dërguam për pakon ${f.trackingNumber}: ajo ende nuk është në stacionin e pakove ${f.stationName}. Do të merrni një kod të ri sapo të jetë aty.`;
    case 'sr':
      return `Zdravo ${f.firstName}, molimo Vas da zanemarite kod za preuzimanje koji smo Vam poslali za paket ${f.trackingNumber}: paket još nije u paketomatu ${f.stationName}. Dobićete novi kod čim paket bude tamo.`;
    case 'tr':
      return `Merhaba ${f.firstName}, ${f.trackingNumber} numaralı kargonuz için gönderdiğimiz teslim alma kodunu lütfen dikkate almayın: kargonuz henüz ${f.stationName} kargo dolabında değil. Dolaba konulur konulmaz size yeni bir kod göndereceğiz.`;
    default: {
      const unknown: never = language;
      throw new Error(`no SMS text for ${String(unknown)}`);
    }
  }
}

/** What stays in the outbox once sent: the text without the code, nor the page's link. */
export function redactCodes(text: string): string {
  return text.replace(/\b\d{8}\b/g, '********').replace(/\/p\/[A-Za-z0-9]+/g, '/p/****');
}
