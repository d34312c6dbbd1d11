import type { Sql } from '../db/connect';
import type { Logger } from '../logger';
import type { AuthenticatedTerminal } from './auth';

// A safety net only: every change that matters arrives by notification. Kiosks poll every
// 15 s, so a minute keeps every active kiosk's entry warm.
const TTL_MS = 60_000;
const MAX_ENTRIES = 200_000;
/** Unknown token hashes remembered; past this the oldest is forgotten first. */
const MAX_UNKNOWN = 100_000;

interface Entry {
  terminal: AuthenticatedTerminal;
  expires: number;
}

/** What a lookup found: a terminal, or `null` for a hash no live terminal has. */
export type Lookup = AuthenticatedTerminal | null;

/**
 * Terminal authentication by token hash, cached in process. Unknown and revoked token
 * hashes are cached too (as `null`), so a refused token costs what an offline or disabled
 * terminal's does: one map lookup, no database round trip whose time would tell whether
 * the token exists. A terminal created with a hash cached as unknown drops that entry by
 * notification (migration 006), as revocations drop theirs. Correctness comes from the
 * database's notifications (migration 003), not from the TTL: a revocation, a status
 * change or a cabinet version bump reaches every server instance on commit. The TTL only
 * bounds the damage of a notification lost while the listening connection was down.
 */
export class TerminalAuthCache {
  private readonly entries = new Map<string, Entry>();
  /** Token hashes no live terminal has, with their expiry. */
  private readonly unknown = new Map<string, number>();
  /** Which cached token hashes belong to a terminal id or a station id. */
  private readonly owners = new Map<string, Set<string>>();
  /** Latest cabinet version seen per station; versions only grow. */
  private readonly versions = new Map<string, bigint>();
  /** Invalidation counter: a lookup that began before any invalidation is not cached. */
  private generation = 0;

  /** Call before reading the database; pass the result to `put`. */
  begin(): number {
    return this.generation;
  }

  /** The cached lookup; `undefined` when the database has to be asked. */
  get(tokenHash: string): Lookup | undefined {
    const unknownUntil = this.unknown.get(tokenHash);
    if (unknownUntil !== undefined) {
      if (unknownUntil >= Date.now()) return null;
      this.unknown.delete(tokenHash);
    }
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.expires < Date.now()) {
      this.drop(tokenHash);
      return undefined;
    }
    return this.withLatestVersion(entry.terminal);
  }

  put(tokenHash: string, terminal: Lookup, begunAt: number): Lookup {
    if (terminal === null) {
      if (begunAt === this.generation) {
        if (this.unknown.size >= MAX_UNKNOWN)
          this.unknown.delete(this.unknown.keys().next().value!);
        this.unknown.set(tokenHash, Date.now() + TTL_MS);
      }
      return null;
    }
    if (terminal.station)
      this.noteVersion(terminal.station.id, BigInt(terminal.station.cabinetVersion));
    // Invalidations are rare (revocations, status and station changes), so refusing to
    // cache across any of them costs little and closes the read-then-invalidate race.
    if (begunAt === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.drop(this.entries.keys().next().value!);
      this.drop(tokenHash);
      this.entries.set(tokenHash, { terminal, expires: Date.now() + TTL_MS });
      for (const owner of [terminal.id, terminal.station?.id]) {
        if (!owner) continue;
        const hashes = this.owners.get(owner) ?? new Set<string>();
        hashes.add(tokenHash);
        this.owners.set(owner, hashes);
      }
    }
    return this.withLatestVersion(terminal);
  }

  /** Records a committed cabinet version; only ever moves forward. */
  noteVersion(stationId: string, version: bigint): void {
    if ((this.versions.get(stationId) ?? -1n) < version) this.versions.set(stationId, version);
  }

  /** Drops entries of a terminal id or a station id, or every entry for '*'. */
  invalidate(key: string): void {
    this.generation++;
    if (key === '*') {
      this.entries.clear();
      this.unknown.clear();
      this.owners.clear();
      this.versions.clear();
      return;
    }
    for (const hash of this.owners.get(key) ?? []) this.drop(hash);
    this.owners.delete(key);
    this.versions.delete(key);
  }

  /** A terminal now has this token hash (base64): it is no longer unknown. */
  tokenIssued(tokenHash: string): void {
    this.generation++;
    this.unknown.delete(tokenHash);
  }

  private drop(tokenHash: string): void {
    const entry = this.entries.get(tokenHash);
    if (!entry) return;
    this.entries.delete(tokenHash);
    for (const owner of [entry.terminal.id, entry.terminal.station?.id]) {
      if (owner) this.owners.get(owner)?.delete(tokenHash);
    }
  }

  private withLatestVersion(terminal: AuthenticatedTerminal): AuthenticatedTerminal {
    const station = terminal.station;
    const latest = station && this.versions.get(station.id);
    if (
      !station ||
      latest === undefined ||
      latest === null ||
      BigInt(station.cabinetVersion) >= latest
    ) {
      return terminal;
    }
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
    sql.listen('locker_terminal_token', (hash) => cache.tokenIssued(hash), onConnect),
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

/**
 * After a commit that changed a station's grid, this instance learns the committed
 * version at once instead of when the notification arrives, so the acting kiosk's next
 * poll cannot get a stale 304. Reading after commit never notes a version that was not.
 */
export async function noteCommittedVersion(
  sql: Sql,
  cache: TerminalAuthCache,
  stationId: string,
): Promise<void> {
  const [station] = await sql<{ cabinet_version: string }[]>`
    select cabinet_version from stations where id = ${stationId}`;
  if (station) cache.noteVersion(stationId, BigInt(station.cabinet_version));
}
