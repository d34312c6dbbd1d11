import type { Sql } from '../db/connect';
import { retried } from '../db/transaction';

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

/** PostgreSQL's lock_not_available (lock_timeout). */
const LOCK_NOT_AVAILABLE = '55P03';

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

  /**
   * Records a heartbeat; answers the station's configuration, or undefined when the
   * terminal has no row to write (gone, or revoked since it was authenticated).
   */
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
    const maxBatch = Math.max(1, this.options.maxBatch ?? 500);
    try {
      while (this.pending.size > 0) {
        const batch = new Map<string, Pending>();
        for (const [id, entry] of this.pending) {
          if (batch.size === maxBatch) break;
          batch.set(id, entry);
        }
        for (const id of batch.keys()) this.pending.delete(id);
        const outcomes = await this.write(batch);
        for (const [id, entry] of batch) {
          const outcome = outcomes.get(id);
          for (const w of entry.waiters)
            if (outcome instanceof Error) w.reject(outcome);
            else w.resolve(outcome);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  /** Each terminal's row as written, absent if none, or the error that stopped it. */
  private async write(batch: Map<string, Pending>): Promise<Map<string, Row | Error>> {
    // In the order of their ids: two instances' batches that share terminals (a kiosk
    // retrying through another instance) then lock them in the same order and wait for
    // each other rather than deadlock while both plan alike (each row found by the index
    // in the batch's order, or the table read in its own order); should two batches of
    // different sizes plan differently, a deadlock is detected and one runs again. Locking
    // them first (`for no key update` in order) would be plan-proof, but writes a lock
    // record for every row besides its update: it doubled PostgreSQL's work a heartbeat.
    const ids = [...batch.keys()].sort();
    const versions = ids.map((id) => batch.get(id)!.appVersion);
    try {
      const rows = await this.statement(ids, versions);
      return new Map(rows.map((r) => [r.id, r]));
    } catch (error) {
      const failed = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));
      if (ids.length === 1 || codeOf(error) !== LOCK_NOT_AVAILABLE)
        return new Map(ids.map((id) => [id, failed(error)]));
      // A row held elsewhere past the connection's lock_timeout: each alone, so only the
      // terminal whose row is held fails, not every kiosk that beat beside it.
      const alone = await Promise.allSettled(
        ids.map((id, i) => this.statement([id], [versions[i]!])),
      );
      const outcomes = new Map<string, Row | Error>();
      alone.forEach((result, i) => {
        if (result.status === 'rejected') outcomes.set(ids[i]!, failed(result.reason));
        else if (result.value[0]) outcomes.set(ids[i]!, result.value[0]);
      });
      return outcomes;
    }
  }

  private statement(ids: string[], versions: (string | null)[]): Promise<Row[]> {
    // Another writer of terminals (an operator's command) locks them in its own order: a
    // deadlock with it is detected and this batch run again (up to 3 times in all).
    return retried(
      () =>
        ids.length === 1
          ? this.sql<Row[]>`
              update terminals t
                 set last_heartbeat_at = now(), app_version = ${versions[0]!},
                     status = case when t.status = 'offline' then 'online' else t.status end
                from stations s
               where t.id = ${ids[0]!} and t.revoked_at is null and s.id = t.station_id
              returning t.id, s.code, s.support_phone, s.idle_timeout_seconds`
          : this.sql<Row[]>`
              update terminals t
                 set last_heartbeat_at = now(), app_version = b.app_version,
                     status = case when t.status = 'offline' then 'online' else t.status end
                from unnest(${ids}::uuid[], ${versions}::text[]) as b(id, app_version), stations s
               where t.id = b.id and t.revoked_at is null and s.id = t.station_id
              returning t.id, s.code, s.support_phone, s.idle_timeout_seconds`,
      3,
    );
  }
}

const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code;
