import type { Sql } from '../db/connect';
import type { Logger } from '../logger';
import type { AuthenticatedTerminal } from './auth';

const TTL_MS = 30_000;
const MAX_ENTRIES = 200_000;

interface Entry {
  terminal: AuthenticatedTerminal;
  expires: number;
}

/**
 * Terminal authentication by token hash, cached in process. Correctness comes from the
 * database's notifications (migration 003), not from the TTL: a revocation, a status
 * change or a cabinet version bump reaches every server instance on commit. The TTL only
 * bounds the damage of a notification lost while the listening connection was down.
 */
export class TerminalAuthCache {
  private readonly entries = new Map<string, Entry>();
  /** Latest cabinet version seen per station; versions only grow. */
  private readonly versions = new Map<string, bigint>();
  /** Invalidation counter: a lookup that began before any invalidation is not cached. */
  private generation = 0;

  /** Call before reading the database; pass the result to `put`. */
  begin(): number {
    return this.generation;
  }

  get(tokenHash: string): AuthenticatedTerminal | undefined {
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.expires < Date.now()) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return this.withLatestVersion(entry.terminal);
  }

  put(tokenHash: string, terminal: AuthenticatedTerminal, begunAt: number): AuthenticatedTerminal {
    // Invalidations are rare (revocations, status and station changes), so refusing to
    // cache across any of them costs little and closes the read-then-invalidate race.
    if (begunAt === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(tokenHash, { terminal, expires: Date.now() + TTL_MS });
    }
    if (terminal.station)
      this.noteVersion(terminal.station.id, BigInt(terminal.station.cabinetVersion));
    return this.withLatestVersion(terminal);
  }

  noteVersion(stationId: string, version: bigint): void {
    if ((this.versions.get(stationId) ?? -1n) < version) this.versions.set(stationId, version);
  }

  /** Drops entries matching `key` (a terminal id, a station id, or '*' for all). */
  invalidate(key: string): void {
    this.generation++;
    if (key === '*') {
      this.entries.clear();
      this.versions.clear();
      return;
    }
    for (const [hash, entry] of this.entries) {
      if (entry.terminal.id === key || entry.terminal.station?.id === key)
        this.entries.delete(hash);
    }
    this.versions.delete(key);
  }

  private withLatestVersion(terminal: AuthenticatedTerminal): AuthenticatedTerminal {
    const station = terminal.station;
    const latest = station && this.versions.get(station.id);
    if (
      !station ||
      latest === undefined ||
      latest === null ||
      BigInt(station.cabinetVersion) >= latest
    )
      return terminal;
    return { ...terminal, station: { ...station, cabinetVersion: latest.toString() } };
  }
}

/** Keeps `cache` exact by listening to the database's change notifications. */
export async function listenForAuthChanges(
  sql: Sql,
  cache: TerminalAuthCache,
  log: Logger,
): Promise<() => Promise<void>> {
  // A (re)connected listener may have missed notifications: start from nothing.
  const onConnect = () => cache.invalidate('*');
  const subscriptions = await Promise.all([
    sql.listen('locker_terminal', (id) => cache.invalidate(id), onConnect),
    sql.listen('locker_station', (id) => cache.invalidate(id), onConnect),
    sql.listen(
      'locker_cabinet',
      (payload) => {
        const [stationId, version] = payload.split(' ');
        if (stationId && version) cache.noteVersion(stationId, BigInt(version));
      },
      onConnect,
    ),
  ]);
  log.debug('listening for terminal and station changes');
  return async () => {
    await Promise.all(subscriptions.map((s) => s.unlisten()));
  };
}
