import type { Refusal } from './api';

// Overflow (issue 27): a courier's parcel the locker is full for goes to the nearest
// locker with room. The core asks the service; the screen shows what it answers.

/** A locker the parcel could go to, as the screen shows it (no id: the code names it). */
export interface OverflowChoice {
  code: string;
  name: string;
  address: string | null;
  distanceM: number;
}

/** Nearest first, at most three; empty when none near has room. */
export type AlternativesResult = { kind: 'alternatives'; stations: OverflowChoice[] } | Refusal;

export type RerouteResult =
  /** The parcel goes there now; a door is held; the recipient's SMS is queued. */
  | { kind: 'rerouted'; station: OverflowChoice; recipientNotified: boolean }
  /** The chosen locker filled up meanwhile: these still have room. */
  | { kind: 'station_full'; stations: OverflowChoice[] }
  | Refusal;

export interface OverflowApi {
  /** After a deposit refused `cabinet_full`: where else the parcel could go. */
  depositAlternatives(courierNo: string, trackingNumber: string): Promise<AlternativesResult>;
  /** The courier takes the parcel to `stationCode` instead. Safe to repeat. */
  rerouteDeposit(
    courierNo: string,
    trackingNumber: string,
    stationCode: string,
  ): Promise<RerouteResult>;
}
