import type { Sql } from '../db/connect';
import type { Logger } from '../logger';

/**
 * How many offline verifiers the worker has made for each station (migration 023), as
 * this instance knows it: with the cabinet version, the version of the station's offline
 * pickup set. Kept by the database's notifications, by the local worker's commits and by
 * every read of the set (which reads it in the same snapshot as the set), so an unchanged
 * poll of the set is a 304 without a query.
 */
export class PickupSetVersions {
  private readonly known = new Map<string, bigint>();
  /** Bumped when the listener reconnects: a read begun before it is not kept. */
  private generation = 0;

  constructor(private readonly sql: Sql) {}

  /** The version this instance knows; undefined when it has to be read. */
  of(stationId: string): bigint | undefined {
    return this.known.get(stationId);
  }

  /** Call before reading a version from the database; pass the result to `note`. */
  begin(): number {
    return this.generation;
  }

  /**
   * Records a committed version; only ever moves forward. A value read (`begunAt` given)
   * is kept only if no notification can have been missed since the read began.
   */
  note(stationId: string, version: bigint, begunAt = this.generation): void {
    if (begunAt !== this.generation) return;
    if ((this.known.get(stationId) ?? -1n) < version) this.known.set(stationId, version);
  }

  /** Follows `locker_verifiers`; a reconnected listener may have missed some: all forgotten. */
  async listen(log: Logger): Promise<() => Promise<void>> {
    const subscription = await this.sql.listen(
      'locker_verifiers',
      (payload) => {
        const [stationId, version] = payload.split(' ');
        if (stationId && version) this.note(stationId, BigInt(version));
      },
      () => {
        this.generation++;
        this.known.clear();
      },
    );
    log.debug('listening for offline verifier versions');
    return () => subscription.unlisten();
  }
}
