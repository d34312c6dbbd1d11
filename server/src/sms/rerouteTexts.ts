import type { Language } from '@locker/shared';

export interface RerouteFacts {
  firstName: string;
  trackingNumber: string;
  /** The station the parcel was booked to, which was full. */
  fromStationName: string;
  /** Where it goes instead, and its address when the operator set one. */
  stationName: string;
  address: string | null;
}

/** "Name (address)", or the name alone when the station has no address. */
function place(f: RerouteFacts): string {
  return f.address ? `${f.stationName} (${f.address})` : f.stationName;
}

/**
 * The parcel's locker changed before its deposit (issue 27): where to collect it now. It
 * carries no code: the code is drawn at the deposit and comes in its own SMS then.
 */
export function reroutedSms(language: Language, f: RerouteFacts): string {
  switch (language) {
    case 'en':
      return `Hello ${f.firstName}, the parcel locker ${f.fromStationName} is full, so your parcel ${f.trackingNumber} goes to the parcel locker ${place(f)} instead. We will send you the pickup code as soon as it is there.`;
    case 'sq':
      return `Përshëndetje ${f.firstName}, stacioni i pakove ${f.fromStationName} është plot, prandaj pakoja juaj ${f.trackingNumber} dërgohet në stacionin e pakove ${place(f)}. Do t'ju dërgojmë kodin e tërheqjes sapo të jetë aty.`;
    case 'sr':
      return `Zdravo ${f.firstName}, paketomat ${f.fromStationName} je pun, pa Vaš paket ${f.trackingNumber} ide u paketomat ${place(f)}. Poslaćemo Vam kod za preuzimanje čim paket bude tamo.`;
    case 'tr':
      return `Merhaba ${f.firstName}, ${f.fromStationName} kargo dolabı dolu olduğu için ${f.trackingNumber} numaralı kargonuz ${place(f)} kargo dolabına gidiyor. Kargonuz oraya konulur konulmaz size teslim alma kodunu göndereceğiz.`;
    default: {
      const unknown: never = language;
      throw new Error(`no SMS text for ${String(unknown)}`);
    }
  }
}
