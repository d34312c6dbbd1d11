import type { Sql } from '../db/connect';
import type { Logger } from '../logger';

const DAY_MS = 86_400_000;

/** A day of the deposit set's courier window: whole UTC days since 1970. */
export const utcDay = (at: number): number => Math.floor(at / DAY_MS);

/** The first moment of a day counted by `utcDay`. */
export const dayStart = (day: number): Date => new Date(day * DAY_MS);

/** A kept ETag is used at most this long, should a change ever go unannounced. */
export const DEPOSIT_SET_KEPT_MS = 15 * 60_000;

interface Kept {
  etag: string;
  /** The cabinet version this instance knew when the read began (at most the read's). */
  cabinetVersion: string;
  day: number;
  at: number;
}

/**
 * The ETag of each station's offline deposit set as this instance last read it, kept
 * while nothing the set is made of has changed (issue 28; migration 029): its doors (the
 * cabinet version, known in memory), its booked parcels (NOTIFY `locker_bookings`), its
 * couriers (NOTIFY `locker_couriers`) and the day (the courier window counts whole days).
 * An unchanged poll is then a 304 without a query. A read records what it found only if
 * no notification about its station arrived while it ran, so a kept ETag names less than
 * the database holds only until the notice of a change arrives: a moment after its
 * commit (for a door, when the cabinet version reaches this instance: migration 027's
 * announcement after the commit, or the auth cache's reload should that be lost), and
 * never longer than `DEPOSIT_SET_KEPT_MS`.
 */
export class DepositSetEtags {
  private readonly kept = new Map<string, Kept | symbol>();

  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now,
  ) {}

  /** The station's ETag, when this instance knows it for this cabinet version and day. */
  of(stationId: string, cabinetVersion: string, day: number): string | undefined {
    const kept = this.kept.get(stationId);
    if (kept === undefined || typeof kept === 'symbol') return undefined;
    if (kept.cabinetVersion !== cabinetVersion || kept.day !== day) return undefined;
    if (this.now() - kept.at > DEPOSIT_SET_KEPT_MS) return undefined;
    return kept.etag;
  }

  /** Call before reading the station's set; pass the result to `keep`. */
  begin(stationId: string): symbol {
    const read = Symbol(stationId);
    this.kept.set(stationId, read);
    return read;
  }

  /** Keeps what a read found, unless its station was announced changed since it began. */
  keep(
    stationId: string,
    read: symbol,
    found: { etag: string; cabinetVersion: string; day: number },
  ): void {
    if (this.kept.get(stationId) !== read) return;
    this.kept.set(stationId, { ...found, at: this.now() });
  }

  /** A station's booked parcels changed. */
  forget(stationId: string): void {
    this.kept.delete(stationId);
  }

  /** A courier changed, or a notification may have been missed: every station's set. */
  forgetAll(): void {
    this.kept.clear();
  }

  async listen(log: Logger): Promise<() => Promise<void>> {
    const bookings = await this.sql.listen(
      'locker_bookings',
      (stationId) => this.forget(stationId),
      () => this.forgetAll(),
    );
    const couriers = await this.sql.listen(
      'locker_couriers',
      () => this.forgetAll(),
      () => this.forgetAll(),
    );
    log.debug('listening for changes of the offline deposit sets');
    return async () => {
      await bookings.unlisten();
      await couriers.unlisten();
    };
  }
}
