import type { Sql } from '../db/connect';

export interface HeartbeatConfiguration {
  code: string;
  support_phone: string;
  idle_timeout_seconds: number;
}

interface Waiter {
  resolve: (config: HeartbeatConfiguration | undefined) => void;
  reject: (error: unknown) => void;
}

interface Pending {
  appVersion: string | null;
  waiters: Waiter[];
}

interface Row extends HeartbeatConfiguration {
  id: string;
}

/** PostgreSQL's deadlock_detected. */
const DEADLOCK = '40P01';

/**
 * Heartbeats written together: the first after a quiet moment waits `windowMs` (0: the
 * next turn of the event loop) for others to join it, and while a statement is on its way
 * every heartbeat that arrives waits for the next, which carries them all (up to
 * `maxBatch`, 500). Every caller still waits for its own row: its answer is the station's
 * configuration as the statement read it. At the busiest hour's 467 heartbeats a second, a
 * statement at once carried one or two and PostgreSQL's work a heartbeat did not change;
 * with 20 ms (the server's default, HEARTBEAT_BATCH_MS) it carries about ten and
 * PostgreSQL's work fell by about half (README, issue 28's tenth round).
 *
 * The same terminal twice in one batch (a kiosk's retry while its first try is in flight)
 * is one row, written with the later app version; both callers get its answer.
 */
export class HeartbeatBatch {
  private pending = new Map<string, Pending>();
  private writing = false;

  constructor(
    private readonly sql: Sql,
    private readonly options: { maxBatch?: number; windowMs?: number } = {},
  ) {}

  /** Records a heartbeat; answers the station's configuration, or undefined if no row. */
  record(
    terminalId: string,
    appVersion: string | null,
  ): Promise<HeartbeatConfiguration | undefined> {
    return new Promise((resolve, reject) => {
      const entry = this.pending.get(terminalId);
      if (entry) {
        entry.appVersion = appVersion;
        entry.waiters.push({ resolve, reject });
      } else {
        this.pending.set(terminalId, { appVersion, waiters: [{ resolve, reject }] });
      }
      if (!this.writing) {
        this.writing = true;
        const windowMs = this.options.windowMs ?? 0;
        if (windowMs > 0) setTimeout(() => void this.drain(), windowMs);
        else setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0) {
      const batch = new Map<string, Pending>();
      for (const [id, entry] of this.pending) {
        if (batch.size === (this.options.maxBatch ?? 500)) break;
        batch.set(id, entry);
      }
      for (const id of batch.keys()) this.pending.delete(id);
      try {
        const rows = await this.write(batch);
        const byId = new Map(rows.map((r) => [r.id, r]));
        for (const [id, entry] of batch) {
          const row = byId.get(id);
          const config = row && {
            code: row.code,
            support_phone: row.support_phone,
            idle_timeout_seconds: row.idle_timeout_seconds,
          };
          for (const w of entry.waiters) w.resolve(config);
        }
      } catch (error) {
        for (const entry of batch.values()) for (const w of entry.waiters) w.reject(error);
      }
    }
    this.writing = false;
  }

  private async write(batch: Map<string, Pending>): Promise<Row[]> {
    // In the order of their ids: two instances' batches that share terminals (a kiosk
    // retrying through another instance) then lock them in the same order and wait for
    // each other rather than deadlock, whichever plan updates them (each found by the
    // index in the batch's order, or the table read in its own). Locking them first
    // (`for no key update` in order) would be plan-proof too, but writes a lock record for
    // every row besides its update: it doubled PostgreSQL's work for a heartbeat.
    const ids = [...batch.keys()].sort();
    const versions = ids.map((id) => batch.get(id)!.appVersion);
    for (let attempt = 1; ; attempt++) {
      try {
        if (ids.length === 1)
          return await this.sql<Row[]>`
            update terminals t
               set last_heartbeat_at = now(), app_version = ${versions[0]!},
                   status = case when t.status = 'offline' then 'online' else t.status end
              from stations s
             where t.id = ${ids[0]!} and s.id = t.station_id
            returning t.id, s.code, s.support_phone, s.idle_timeout_seconds`;
        return await this.sql<Row[]>`
          update terminals t
             set last_heartbeat_at = now(), app_version = b.app_version,
                 status = case when t.status = 'offline' then 'online' else t.status end
            from unnest(${ids}::uuid[], ${versions}::text[]) as b(id, app_version), stations s
           where t.id = b.id and s.id = t.station_id
          returning t.id, s.code, s.support_phone, s.idle_timeout_seconds`;
      } catch (error) {
        // Another writer of terminals (an operator's command, the liveness sweep) locks
        // them in its own order: a deadlock with it is detected and this batch run again.
        if (attempt < 3 && (error as { code?: string }).code === DEADLOCK) continue;
        throw error;
      }
    }
  }
}
