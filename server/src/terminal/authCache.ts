import type { Sql } from '../db/connect';
import type { Logger } from '../logger';
import { readTerminals, type AuthenticatedTerminal } from './auth';

// A safety net only: every change that matters arrives by notification (a reconnected
// listener reads the whole replica at once), and the whole replica is read again this
// often in case one was lost. Each read of 28,000 terminals costs the event loop ≈0.3 s
// of CPU in small pieces; every minute, that was a tail of the peak hour (issue 28).
const RELOAD_MS = 300_000;
/** A failed read of the replica is tried again after 1 s, 2 s, 4 s … at most 30 s. */
const READ_RETRY_MS = 1_000;
const READ_RETRY_MAX_MS = 30_000;
const MAX_ENTRIES = 200_000;

/** What a lookup found: a terminal, or `null` for a hash no live terminal has. */
export type Lookup = AuthenticatedTerminal | null;

/**
 * Terminal authentication by token hash: a replica, in process, of every live terminal
 * (`loadAll`), kept exact by the database's notifications (migrations 003, 006), so an
 * allowed terminal never waits for the database, however long since its last request.
 * A hash a notification made stale (a revocation, a status, station or token change) is
 * read from the database again; a refusal always is (`auth.ts`), so that every refusal
 * costs the same work (issue 22: a token unseen for 60 s used to wait for the database,
 * a cached one did not).
 */
export class TerminalAuthCache {
  private entries = new Map<string, AuthenticatedTerminal>();
  /** Hashes a change touched since the replica read them: the database decides them. */
  private readonly stale = new Set<string>();
  /** Which cached token hashes belong to a terminal id or a station id. */
  private owners = new Map<string, Set<string>>();
  /** Latest cabinet version seen per station; versions only grow. */
  private readonly versions = new Map<string, bigint>();
  /** Invalidation counter: a read that began before any invalidation is not kept. */
  private generation = 0;
  /** Whether `entries` holds every live terminal (else a miss asks the database). */
  private complete = false;

  /** Call before reading the database; pass the result to `put` or `replaceAll`. */
  begin(): number {
    return this.generation;
  }

  /** Whether the replica is complete: a miss is then a refusal, without the database. */
  get isComplete(): boolean {
    return this.complete;
  }

  /** The cached lookup; `undefined` when the database has to be asked. */
  get(tokenHash: string): Lookup | undefined {
    if (this.stale.has(tokenHash)) return undefined;
    const terminal = this.entries.get(tokenHash);
    if (terminal) return this.withLatestVersion(terminal);
    return this.complete ? null : undefined;
  }

  put(tokenHash: string, terminal: Lookup, begunAt: number): Lookup {
    if (terminal?.station)
      this.noteVersion(terminal.station.id, BigInt(terminal.station.cabinetVersion));
    // Invalidations are rare (revocations, status and station changes), so refusing to
    // keep a read across any of them costs little and closes the read-then-invalidate race.
    if (begunAt === this.generation) {
      this.stale.delete(tokenHash);
      this.drop(tokenHash);
      if (terminal) this.add(tokenHash, terminal);
    }
    return terminal && this.withLatestVersion(terminal);
  }

  /**
   * The replica read whole in batches: entries go into maps of their own while requests
   * go on being answered from the current ones, which are swapped for them in one step
   * (`ReplicaBuilder.swapIn`). 28,000 terminals added at once held the event loop for a
   * quarter of a second every minute (a CPU profile of the peak hour).
   */
  builder(): ReplicaBuilder {
    return new ReplicaBuilder(this);
  }

  /** For ReplicaBuilder only. */
  swap(
    entries: Map<string, AuthenticatedTerminal>,
    owners: Map<string, Set<string>>,
    begunAt: number,
    complete: boolean,
  ): boolean {
    if (begunAt !== this.generation) return false;
    this.entries = entries;
    this.owners = owners;
    this.stale.clear();
    this.complete = complete;
    return true;
  }

  /** Records a committed cabinet version; only ever moves forward. */
  noteVersion(stationId: string, version: bigint): void {
    if ((this.versions.get(stationId) ?? -1n) < version) this.versions.set(stationId, version);
  }

  /**
   * Marks the entries of a terminal id or a station id stale; '*' (a reconnected
   * listener, which may have missed notifications) forgets the whole replica until it is
   * read again.
   */
  invalidate(key: string): void {
    this.generation++;
    if (key === '*') {
      this.entries.clear();
      this.stale.clear();
      this.owners.clear();
      this.versions.clear();
      this.complete = false;
      return;
    }
    for (const hash of this.owners.get(key) ?? []) {
      this.drop(hash);
      this.stale.add(hash);
    }
    this.owners.delete(key);
    this.versions.delete(key);
  }

  /** A terminal now has this token hash (base64): the database decides it next. */
  tokenIssued(tokenHash: string): void {
    this.generation++;
    this.stale.add(tokenHash);
  }

  private add(tokenHash: string, terminal: AuthenticatedTerminal): void {
    if (this.entries.size >= MAX_ENTRIES) {
      // Past the bound the replica cannot be whole: misses go to the database again.
      this.complete = false;
      this.drop(this.entries.keys().next().value!);
    }
    addEntry(this.entries, this.owners, tokenHash, terminal);
  }

  private drop(tokenHash: string): void {
    const terminal = this.entries.get(tokenHash);
    if (!terminal) return;
    this.entries.delete(tokenHash);
    for (const owner of [terminal.id, terminal.station?.id]) {
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

function addEntry(
  entries: Map<string, AuthenticatedTerminal>,
  owners: Map<string, Set<string>>,
  tokenHash: string,
  terminal: AuthenticatedTerminal,
): void {
  entries.set(tokenHash, terminal);
  for (const owner of [terminal.id, terminal.station?.id]) {
    if (!owner) continue;
    const hashes = owners.get(owner) ?? new Set<string>();
    hashes.add(tokenHash);
    owners.set(owner, hashes);
  }
}

/** A whole replica being read (`TerminalAuthCache.builder`), swapped in when complete. */
export class ReplicaBuilder {
  private readonly entries = new Map<string, AuthenticatedTerminal>();
  private readonly owners = new Map<string, Set<string>>();
  /** More live terminals than the bound: the replica is partial, misses ask the database. */
  private overflow = false;

  constructor(private readonly cache: TerminalAuthCache) {}

  add(terminals: Iterable<[string, AuthenticatedTerminal]>): void {
    for (const [hash, terminal] of terminals) {
      // Versions only move forward, so a version read is noted at once, swap or not.
      if (terminal.station)
        this.cache.noteVersion(terminal.station.id, BigInt(terminal.station.cabinetVersion));
      if (this.entries.size < MAX_ENTRIES) addEntry(this.entries, this.owners, hash, terminal);
      else this.overflow = true;
    }
  }

  /** Replaces the cache's replica, unless an invalidation came in since `begunAt`. */
  swapIn(begunAt: number): boolean {
    return this.cache.swap(this.entries, this.owners, begunAt, !this.overflow);
  }
}

/**
 * Terminals read per round trip by `loadAll`; the event loop runs between batches. A
 * batch of 2,000 (parsing the rows, adding them) held the loop ≈60 ms at a time, the
 * peak hour's worst moment; 250 hold it a few ms.
 */
const LOAD_BATCH = 250;

/**
 * Reads every live terminal into the replica; again when an invalidation raced the read
 * (a few tries, then the next reload does it). A read an invalidation overtook is given up
 * at its next batch, not read to the end: every read of 28,000 terminals leaves ≈40 MB
 * that outlives the young generation's collections (it is built across many turns of the
 * event loop), garbage for the next full collection.
 */
export async function loadAll(
  sql: Sql,
  cache: TerminalAuthCache,
  batch = LOAD_BATCH,
): Promise<boolean> {
  attempts: for (let attempt = 0; attempt < 3; attempt++) {
    const begunAt = cache.begin();
    const builder = cache.builder();
    for await (const terminals of readTerminals(sql, batch)) {
      if (cache.begin() !== begunAt) continue attempts;
      builder.add(terminals);
      // Requests waiting meanwhile are answered before the next batch is added.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (builder.swapIn(begunAt)) return true;
  }
  return false;
}

/** Keeps `cache` exact by listening to the database's change notifications. */
export async function listenForAuthChanges(
  sql: Sql,
  cache: TerminalAuthCache,
  log: Logger,
  options: {
    /** How the replica is read (tests count and fail reads through it). */
    load?: (sql: Sql, cache: TerminalAuthCache) => Promise<boolean>;
    /** The first wait before a failed read is tried again; doubled up to 30 s. */
    retryMs?: number;
  } = {},
): Promise<() => Promise<void>> {
  const load = options.load ?? loadAll;
  const retryMs = options.retryMs ?? READ_RETRY_MS;
  // A (re)connected listener may have missed notifications: the replica is read again.
  // One read at a time: each of the four channels reports its reconnection. Five whole
  // reads at every start (each channel's first LISTEN reported as a connection, and the
  // start's own read; four given up at their end) left ≈200 MB for the first full
  // collection, whose pause was the peak hour's one stall (issue 28). A read asked for
  // during another is that read, and is read again only if the replica did not come out
  // whole (an invalidation after its last try).
  //
  // A read that failed (the database unreachable, or changes overtaking each of its tries)
  // is tried again soon, not at the next safety-net reload: answers stay right meanwhile
  // (a terminal the replica lacks is read from the database), but each costs a query, at
  // the moment (a reconnection, a busy hour) the replica is there to spare them.
  let reading: Promise<void> | undefined;
  let asked = false;
  let closed = false;
  let wake: (() => void) | undefined;
  let tried: (() => void) | undefined;
  // A wait that closing cuts short.
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, ms).unref();
    }).finally(() => (wake = undefined));
  const readReplica = async () => {
    for (let failures = 0; !closed;) {
      asked = false;
      const read = await load(sql, cache).catch((error: unknown) => {
        log.warn({ err: error }, 'could not read the terminals for the auth replica');
        return false;
      });
      tried?.();
      if (read) {
        if (!(asked && !cache.isComplete)) return;
        failures = 0;
      } else {
        const wait = Math.min(retryMs * 2 ** failures++, READ_RETRY_MAX_MS);
        log.warn({ retryInMs: wait }, 'the auth replica is not whole; reading it again');
        await pause(wait);
      }
    }
  };
  const reload = (): Promise<void> => {
    asked = true;
    reading ??= readReplica().finally(() => (reading = undefined));
    return reading;
  };
  // postgres.js reports a channel's first LISTEN too: the start's own read, once all four
  // listen, covers those. Only a reconnection (the listener's connection lost and its
  // channels listened to again) can have missed a change.
  let subscribed = false;
  const onConnect = () => {
    if (!subscribed) return;
    cache.invalidate('*');
    void reload();
  };
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
  subscribed = true;
  // Subscribed first, so no change between the read and the subscription is missed. The
  // start waits for one try; a replica not whole after it is read again meanwhile.
  await new Promise<void>((resolve) => {
    tried = resolve;
    void reload();
  });
  tried = undefined;
  const timer = setInterval(() => void reload(), RELOAD_MS);
  timer.unref();
  log.debug('listening for terminal and station changes');
  return async () => {
    closed = true;
    clearInterval(timer);
    wake?.();
    await Promise.all(subscriptions.map((s) => s.unlisten()));
  };
}

/**
 * The station's cabinet version, read after a commit that changed its grid: noted by
 * this instance at once instead of when the notification arrives, so the acting kiosk's
 * next poll cannot get a stale 304. Reading after commit never finds a version that was
 * not. Undefined: no such station.
 */
export async function committedVersionOf(sql: Sql, stationId: string): Promise<bigint | undefined> {
  const [station] = await sql<{ cabinet_version: string }[]>`
    select cabinet_version from stations where id = ${stationId}`;
  return station && BigInt(station.cabinet_version);
}
