import type { Language } from '@locker/shared';
import { pluralForm } from '../domain/intl';

export interface NoticeFacts {
  firstName: string;
  trackingNumber: string;
  stationName: string;
}

/** "in 24 hours" as each language says it before a deadline. */
function inHours(language: Language, hours: number): string {
  const form = pluralForm(language, hours);
  switch (language) {
    case 'en':
      return `in ${hours} ${form === 'one' ? 'hour' : 'hours'}`;
    case 'sq': // "pas" with the ablative: 1 ore, 24 orësh
      return `pas ${hours} ${form === 'one' ? 'ore' : 'orësh'}`;
    case 'sr': // "za" with the accusative: 1 sat, 2–4 sata, 5+ sati (21 sat, 24 sata)
      return `za ${hours} ${form === 'one' ? 'sat' : form === 'few' ? 'sata' : 'sati'}`;
    case 'tr':
      return `${hours} saat içinde`;
    default: {
      const unknown: never = language;
      throw new Error(`no SMS text for ${String(unknown)}`);
    }
  }
}

/** The receipt: the recipient's parcel left the locker (theirs, or someone with their code). */
export function collectedSms(language: Language, f: NoticeFacts): string {
  switch (language) {
    case 'en':
      return `Hello ${f.firstName}, your parcel ${f.trackingNumber} was collected from the parcel locker ${f.stationName}. Thank you!`;
    case 'sq':
      return `Përshëndetje ${f.firstName}, pakoja juaj ${f.trackingNumber} u tërhoq nga stacioni i pakove ${f.stationName}. Faleminderit!`;
    case 'sr':
      return `Zdravo ${f.firstName}, Vaš paket ${f.trackingNumber} je preuzet iz paketomata ${f.stationName}. Hvala!`;
    case 'tr':
      return `Merhaba ${f.firstName}, ${f.trackingNumber} numaralı kargonuz ${f.stationName} kargo dolabından teslim alındı. Teşekkürler!`;
    default: {
      const unknown: never = language;
      throw new Error(`no SMS text for ${String(unknown)}`);
    }
  }
}

/** Sent `hours` before the free-storage window ends. */
export function freeStorageEndingSms(language: Language, f: NoticeFacts, hours: number): string {
  const when = inHours(language, hours);
  switch (language) {
    case 'en':
      return `Hello ${f.firstName}, free storage of your parcel ${f.trackingNumber} at the parcel locker ${f.stationName} ends ${when}. Please collect it with the code we sent you.`;
    case 'sq':
      return `Përshëndetje ${f.firstName}, ruajtja falas e pakos suaj ${f.trackingNumber} në stacionin e pakove ${f.stationName} përfundon ${when}. Ju lutemi tërhiqeni me kodin që ju dërguam.`;
    case 'sr':
      return `Zdravo ${f.firstName}, besplatno čuvanje Vašeg paketa ${f.trackingNumber} u paketomatu ${f.stationName} ističe ${when}. Molimo Vas da ga preuzmete kodom koji smo Vam poslali.`;
    case 'tr':
      return `Merhaba ${f.firstName}, ${f.trackingNumber} numaralı kargonuzun ${f.stationName} kargo dolabındaki ücretsiz saklama süresi ${when} doluyor. Lütfen size gönderdiğimiz kodla teslim alın.`;
    default: {
      const unknown: never = language;
      throw new Error(`no SMS text for ${String(unknown)}`);
    }
  }
}

/** Sent `hours` before the parcel expires and goes back to the sender. */
export function expiringSms(language: Language, f: NoticeFacts, hours: number): string {
  const when = inHours(language, hours);
  switch (language) {
    case 'en':
      return `Hello ${f.firstName}, your parcel ${f.trackingNumber} at the parcel locker ${f.stationName} goes back to the sender ${when} unless you collect it with the code we sent you.`;
    case 'sq':
      return `Përshëndetje ${f.firstName}, pakoja juaj ${f.trackingNumber} në stacionin e pakove ${f.stationName} i kthehet dërguesit ${when} nëse nuk e tërhiqni me kodin që ju dërguam.`;
    case 'sr':
      return `Zdravo ${f.firstName}, Vaš paket ${f.trackingNumber} u paketomatu ${f.stationName} vraća se pošiljaocu ${when} ako ga ne preuzmete kodom koji smo Vam poslali.`;
    case 'tr':
      return `Merhaba ${f.firstName}, ${f.trackingNumber} numaralı kargonuz ${f.stationName} kargo dolabından size gönderdiğimiz kodla teslim alınmazsa ${when} göndericiye iade edilecek.`;
    default: {
      const unknown: never = language;
      throw new Error(`no SMS text for ${String(unknown)}`);
    }
  }
}

/**
 * Issue 27: appended to a storage reminder while the station grants an extension the
 * parcel has not taken: how to get it. The recipient takes it on their page, whose link
 * is in the pickup-code SMS (the service keeps only the link's hash, so it cannot send
 * the link again), or through the support line, when the station has one.
 */
export function extensionHintSms(language: Language, hours: number, phone: string | null): string {
  switch (language) {
    case 'en':
      return ` Need more time? Open the link in the SMS with your code to keep it ${hours} h longer (once)${phone ? `, or call ${phone}` : ''}.`;
    case 'sq':
      return ` Keni nevojë për më shumë kohë? Hapni lidhjen në SMS-në me kodin që ta mbajmë ${hours} orë më gjatë (një herë)${phone ? `, ose telefononi ${phone}` : ''}.`;
    case 'sr':
      return ` Treba Vam više vremena? Otvorite link iz SMS-a sa kodom da se čuva još ${hours} h (jednom)${phone ? `, ili pozovite ${phone}` : ''}.`;
    case 'tr':
      return ` Daha fazla süre mi gerekiyor? ${hours} saat daha saklanması için kodunuzun olduğu SMS'teki bağlantıyı açın (bir kez)${phone ? ` veya ${phone} numarasını arayın` : ''}.`;
    default: {
      const unknown: never = language;
      throw new Error(`no SMS text for ${String(unknown)}`);
    }
  }
}
