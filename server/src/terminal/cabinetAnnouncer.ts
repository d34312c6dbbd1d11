import type { Sql } from '../db/connect';
import type { Logger } from '../logger';

const RETRY_MS = 1_000;

/**
 * Announces stations' new cabinet versions to every instance (NOTIFY `locker_cabinet`,
 * read by the auth cache's versions and the live link's hints) after the commit that
 * made them, for the paths whose commit does not (migration 027, `underStationLock`).
 * Sent from the asynchronous-commit pool, so the notifying transaction holds the
 * database's notify lock without waiting for a flush; gathered while one is in flight,
 * the newest version of each station only. A failed send is tried again after 1 s; if
 * the process dies first, other instances learn the version with the station's next
 * change, or from the auth cache's reload within 5 minutes (docs/decisions.md).
 */
export class CabinetAnnouncer {
  private readonly pending = new Map<string, bigint>();
  private sending: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
  ) {}

  announce(stationId: string, version: bigint): void {
    if (this.closed) return;
    this.keepNewest(stationId, version);
    this.sending ??= this.send();
  }

  private keepNewest(stationId: string, version: bigint): void {
    if ((this.pending.get(stationId) ?? -1n) < version) this.pending.set(stationId, version);
  }

  /** Stops announcing: what is pending is sent, a failed send is not tried again. */
  async close(): Promise<void> {
    this.closed = true;
    await this.sending;
  }

  private async send(): Promise<void> {
    while (this.pending.size > 0) {
      const batch = [...this.pending];
      this.pending.clear();
      try {
        await this.sql`
          select pg_notify('locker_cabinet', p)
            from unnest(${batch.map(([station, version]) => `${station} ${version}`)}::text[]) p`;
      } catch (error) {
        this.log.warn(
          { err: error, stations: batch.length },
          'cabinet announcement failed; retrying',
        );
        for (const [station, version] of batch) this.keepNewest(station, version);
        if (this.closed) break;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
      }
    }
    this.sending = undefined;
  }
}
