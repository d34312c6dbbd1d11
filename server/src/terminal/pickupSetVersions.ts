import type { Sql } from '../db/connect';
import type { Logger } from '../logger';

/**
 * How many offline verifiers the worker has made for each station (migration 023), as
 * this instance knows it: with the cabinet version, the version of the station's offline
 * pickup set. Kept by the database's notifications and by the local worker's commits, so
 * an unchanged poll of the set is a 304 without a query; a station not known yet (first
 * poll since the start, or since the listener reconnected) is read once.
 */
export class PickupSetVersions {
  private readonly known = new Map<string, bigint>();
  /** Bumped when the listener reconnects: a read begun before it is not kept. */
  private generation = 0;

  constructor(private readonly sql: Sql) {}

  /** Records a committed version; only ever moves forward. */
  note(stationId: string, version: bigint): void {
    if ((this.known.get(stationId) ?? -1n) < version) this.known.set(stationId, version);
  }

  /** The station's verifier version: from memory, else read (0 before its first verifier). */
  async of(stationId: string): Promise<bigint> {
    const known = this.known.get(stationId);
    if (known !== undefined) return known;
    const begunAt = this.generation;
    const [row] = await this.sql<{ version: string }[]>`
      select version from station_verifier_versions where station_id = ${stationId}`;
    const version = BigInt(row?.version ?? 0);
    if (begunAt === this.generation) this.note(stationId, version);
    return this.known.get(stationId) ?? version;
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
