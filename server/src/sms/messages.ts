import type { Language } from '@locker/shared';
import { firstNameOf } from '../domain/people';
import type { QueuedSms } from './channel';
import { collectedSms, expiringSms, extensionHintSms, freeStorageEndingSms } from './noticeTexts';
import { disregardCodeSms, pickupSms } from './texts';
import { reroutedSms } from './rerouteTexts';

/**
 * The parcel an SMS is about and its recipient, as the shipment's row names them. Every
 * SMS to a recipient is composed here, from these facts, in the recipient's language.
 */
export interface ParcelRecipient {
  tracking_number: string;
  recipient_name: string;
  recipient_phone: string;
  recipient_language: Language;
  station_name: string;
}

function to(parcel: ParcelRecipient, carriesCode: boolean, text: string): QueuedSms {
  return {
    to: parcel.recipient_phone,
    language: parcel.recipient_language,
    carriesCode,
    text,
  };
}

/** What every text says of the parcel: only the recipient's first name, never the full one. */
function factsOf(parcel: ParcelRecipient) {
  return {
    firstName: firstNameOf(parcel.recipient_name),
    trackingNumber: parcel.tracking_number,
    stationName: parcel.station_name,
  };
}

/** The pickup-code SMS of a deposited parcel, free for `freeStorageHours`. */
export function pickupCodeMessage(
  parcel: ParcelRecipient,
  code: string,
  freeStorageHours: number,
  /** The recipient's page (recipient/page.ts). */
  link: string,
): QueuedSms {
  const facts = { ...factsOf(parcel), code, hours: freeStorageHours, link };
  return to(parcel, true, pickupSms(parcel.recipient_language, facts));
}

/** The recipient's receipt of a collection. */
export function collectionReceipt(parcel: ParcelRecipient): QueuedSms {
  return to(parcel, false, collectedSms(parcel.recipient_language, factsOf(parcel)));
}

/** A deposit undone after its pickup code may have reached the recipient: disregard it. */
export function disregardCodeMessage(parcel: ParcelRecipient): QueuedSms {
  return to(parcel, false, disregardCodeSms(parcel.recipient_language, factsOf(parcel)));
}

/** A reminder `hoursLeft` before free storage ends, or before the parcel expires. */
export function storageReminder(
  parcel: ParcelRecipient,
  notice: 'free_storage_ending' | 'expiring',
  hoursLeft: number,
  /**
   * An extension the parcel may still take (issue 27), and the support line that also
   * grants it (null: the station has none); the hint points to the recipient's page.
   */
  extension?: { hours: number; phone: string | null },
): QueuedSms {
  const language = parcel.recipient_language;
  const text =
    notice === 'free_storage_ending'
      ? freeStorageEndingSms(language, factsOf(parcel), hoursLeft)
      : expiringSms(language, factsOf(parcel), hoursLeft);
  const hint = extension ? extensionHintSms(language, extension.hours, extension.phone) : '';
  return to(parcel, false, text + hint);
}

/** The parcel goes to another locker, the first being full (issue 27); no code in it. */
export function reroutedMessage(
  parcel: ParcelRecipient,
  to_: { stationName: string; address: string | null; fromStationName: string },
): QueuedSms {
  const text = reroutedSms(parcel.recipient_language, { ...factsOf(parcel), ...to_ });
  return to(parcel, false, text);
}
