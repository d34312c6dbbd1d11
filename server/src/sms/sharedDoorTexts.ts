import type { Language } from '@locker/shared';
import { firstNameOf } from '../domain/people';
import type { QueuedSms } from './channel';
import type { ParcelRecipient } from './messages';

// Issue 27, "several parcels, one door, one code": a parcel that joined the door of the
// recipient's other parcel gets this SMS instead of a code SMS. It never carries the code
// (the recipient has it from the first parcel's SMS), so it never needs redacting.

export interface SharedDoorSmsFacts {
  firstName: string;
  trackingNumber: string;
  /** The parcel already in the door, whose SMS carried the code. */
  withTrackingNumber: string;
  stationName: string;
}

export function sharedDoorSms(language: Language, f: SharedDoorSmsFacts): string {
  switch (language) {
    case 'en':
      return `Hello ${f.firstName}, your parcel ${f.trackingNumber} is in the parcel locker ${f.stationName}, in the same door as your parcel ${f.withTrackingNumber}. The code we sent you for that parcel opens the door: take both.`;
    case 'sq':
      return `Përshëndetje ${f.firstName}, pakoja juaj ${f.trackingNumber} është në stacionin e pakove ${f.stationName}, në të njëjtën derë me pakon tuaj ${f.withTrackingNumber}. Kodi që ju dërguam për atë pako e hap derën: merrni të dyja.`;
    case 'sr':
      return `Zdravo ${f.firstName}, Vaš paket ${f.trackingNumber} je u paketomatu ${f.stationName}, u istim vratima kao Vaš paket ${f.withTrackingNumber}. Kod koji smo Vam poslali za taj paket otvara vrata: uzmite oba.`;
    case 'tr':
      return `Merhaba ${f.firstName}, ${f.trackingNumber} numaralı kargonuz ${f.stationName} kargo dolabında, ${f.withTrackingNumber} numaralı kargonuzla aynı kapıda. O kargo için gönderdiğimiz kod kapıyı açar: ikisini de alın.`;
    default: {
      const unknown: never = language;
      throw new Error(`no SMS text for ${String(unknown)}`);
    }
  }
}

/** The SMS of a parcel that joined a door: no code, carriesCode false. */
export function sharedDoorMessage(parcel: ParcelRecipient, withTrackingNumber: string): QueuedSms {
  return {
    to: parcel.recipient_phone,
    language: parcel.recipient_language,
    carriesCode: false,
    text: sharedDoorSms(parcel.recipient_language, {
      firstName: firstNameOf(parcel.recipient_name),
      trackingNumber: parcel.tracking_number,
      withTrackingNumber,
      stationName: parcel.station_name,
    }),
  };
}
