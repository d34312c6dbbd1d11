/**
 * The request mix of a national network's busiest hour, and what a run needs seeded.
 *
 * Yardstick: InPost in Poland, 2025: ~28,000 lockers, 763 million parcels a year
 * (≈2.1 million a day), busiest day ≈4× the average (≈8.4 million). A tenth of that day
 * in its busiest hour is ≈233 parcels a second; each is a merchant create, a label, a
 * deposit, an SMS, a pickup, a door confirm and their events. Every kiosk heartbeats
 * every 60 s and polls what kiosk/src/core/kiosk.ts polls: /cabinet every 15 s (every
 * 300 s while its live link is up, and once after each change the link announces), its
 * offline pickup set every 15 s and its offline deposit set every 60 s, each by ETag.
 */
export const POLISH_STATIONS = 28_000;
export const POLISH_PARCELS_PER_SECOND = (8_400_000 * 0.1) / 3600;

/** Requests per second of each stream at fraction 1 of the hour. */
export interface Rates {
  create: number;
  /** Labels follow creates one for one; this is their share of creates. */
  labelShare: number;
  courierVerify: number;
  deposit: number;
  pickup: number;
  wrongPickup: number;
  /** Customer returns started (each followed by its confirm). */
  returns: number;
  heartbeat: number;
  /** Idle /cabinet polls. */
  cabinet: number;
  /**
   * /cabinet polls that follow a change of the cabinet (a deposit, a collection) because
   * the live link said so: 1 with the link, 0 without; a share of those changes.
   */
  cabinetHints: number;
  /** `GET /terminal/v1/offline/pickups` and `/offline/deposits`, by ETag. */
  offlinePickups: number;
  offlineDeposits: number;
}

export interface Shares {
  /** Creates carrying an Idempotency-Key; a few of those are sent twice (replays). */
  idempotent: number;
  replay: number;
  /** Deposits at a few hot stations, four couriers at once. */
  hotDeposit: number;
  /** Door confirms sent late (queued on the kiosk) with `occurred_at`. */
  lateConfirm: number;
  /** /cabinet polls holding the kiosk's last ETag. */
  cabinetWithEtag: number;
}

export function polishBusiestHour(
  stations = POLISH_STATIONS,
  parcelsPerSecond = POLISH_PARCELS_PER_SECOND,
  /** Kiosks on the live link: the idle /cabinet poll waits 300 s, hints bring the rest. */
  link = false,
): Rates {
  return {
    create: parcelsPerSecond,
    labelShare: 1,
    // A courier verifies once per stop and deposits about four parcels there.
    courierVerify: parcelsPerSecond / 4,
    deposit: parcelsPerSecond,
    pickup: parcelsPerSecond,
    // One attempt in ten is a mistyped code.
    wrongPickup: parcelsPerSecond / 10,
    returns: parcelsPerSecond / 50,
    heartbeat: stations / 60,
    cabinet: stations / (link ? 300 : 15),
    cabinetHints: link ? 1 : 0,
    offlinePickups: stations / 15,
    offlineDeposits: stations / 60,
  };
}

export const DEFAULT_SHARES: Shares = {
  idempotent: 0.2,
  replay: 0.05,
  hotDeposit: 0.1,
  lateConfirm: 0.1,
  cabinetWithEtag: 0.9,
};

export function scaled(rates: Rates, fraction: number): Rates {
  return {
    create: rates.create * fraction,
    labelShare: rates.labelShare,
    courierVerify: rates.courierVerify * fraction,
    deposit: rates.deposit * fraction,
    pickup: rates.pickup * fraction,
    wrongPickup: rates.wrongPickup * fraction,
    returns: rates.returns * fraction,
    heartbeat: rates.heartbeat * fraction,
    cabinet: rates.cabinet * fraction,
    cabinetHints: rates.cabinetHints,
    offlinePickups: rates.offlinePickups * fraction,
    offlineDeposits: rates.offlineDeposits * fraction,
  };
}

/** All requests per second of the mix, follow-ups (labels, confirms) included. */
export function totalRate(r: Rates): number {
  return (
    r.create * (1 + r.labelShare) +
    r.courierVerify +
    r.deposit +
    r.pickup * 2 +
    r.wrongPickup +
    r.returns * 2 +
    r.heartbeat +
    r.cabinet +
    // A deposit and a collection each change the cabinet once.
    r.cabinetHints * (r.deposit + r.pickup) +
    r.offlinePickups +
    r.offlineDeposits
  );
}

export interface Phase {
  name: string;
  fraction: number;
  seconds: number;
  /** A lead-in before `seconds` whose rate rises from 0 (half its length at the full rate). */
  rampSeconds?: number;
  instances: 1 | 2;
}

export interface Pools {
  /** Parcels booked for deposit at ordinary stations. */
  booked: number;
  /** Parcels booked for the hot stations (deposited four at a time). */
  hotBooked: number;
  /** Hot stations, each with 48 empty doors; never more than 40 deposits each. */
  hotStations: number;
  /** Parcels awaiting pickup whose code the generator knows. */
  pickups: number;
  /** Collected parcels a customer may return. */
  returnable: number;
}

export const HOT_DEPOSITS_PER_STATION = 40;

/** What the phases consume, with a margin: the pacing is exact, the margin is for rounding. */
export function poolsFor(rates: Rates, shares: Shares, phases: Phase[]): Pools {
  const need = (perSecond: number) =>
    Math.ceil(
      phases.reduce(
        (sum, p) => sum + perSecond * p.fraction * (p.seconds + (p.rampSeconds ?? 0) / 2),
        0,
      ) * 1.05,
    ) + 100;
  const hotBooked = need(rates.deposit * shares.hotDeposit);
  return {
    booked: need(rates.deposit * (1 - shares.hotDeposit)),
    hotBooked,
    hotStations: Math.max(1, Math.ceil(hotBooked / HOT_DEPOSITS_PER_STATION)),
    pickups: need(rates.pickup),
    returnable: need(rates.returns),
  };
}
