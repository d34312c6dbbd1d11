import { matchVerifiers, parseVerifier, type ParsedVerifier } from '@locker/shared/verifier';
import type { KioskState, PickupResult } from '../bridge/api';
import { AttemptWindow } from './attemptWindow';
import type { TerminalClient } from './client';
import type { KioskDatabase } from './database';
import type { KioskLog } from './log';
import { serially } from './serially';

// A pickup while the service cannot be reached (docs/terminal-extensions.md, "Offline
// operation"; threat model in docs/decisions.md). While online the kiosk keeps its own
// station's pickup verifiers; offline it checks a typed code against them with the
// service's rules (the spec's sliding window, one refusal for every wrong code), opens
// the door through the same door session as an online pickup and queues the confirm with
// the time the door shut. A parcel handed out here is never offered again by this kiosk.

/** The spec's pickup limit: 10 attempts a minute per terminal, refused ones counted. */
export const PICKUP_LIMIT = 10;

/** What the offline pickup needs of the rest of the kiosk. */
export interface OfflinePickupDeps {
  db: KioskDatabase;
  client: TerminalClient;
  log: KioskLog;
  /**
   * The same door session an online pickup opens (DoorFlows.pickup); `others`: the door's
   * other parcels the same code verifies (issue 27), confirmed each with the first.
   */
  openDoor(door: number, shipmentId: string, others: string[]): Promise<PickupResult>;
  /** The session the screen follows now: its id, once the door opened. */
  currentSessionId(): number | null;
  /** Every state the screen is sent, to follow the session to its end. */
  onState(listener: (state: KioskState) => void): () => void;
  now?: () => number;
}

interface StoredPickup {
  shipment_id: string;
  door: number;
  collect_until: string;
  verifier: string;
}

/**
 * A verifier the kiosk may use (one parameter: now): the parcel still collectable, not
 * handed out here, not barred (its door opened or given to another parcel through this
 * kiosk online: `bar`), and not collected through this kiosk online with its confirm still
 * queued (the service would still offer it; this kiosk must not, offline).
 */
const USABLE = `p.collect_until > ?
  and not exists (select 1 from offline_handouts h
                   where h.shipment_id = p.shipment_id and h.state in ('opened', 'collected'))
  and not exists (select 1 from offline_barred b where b.shipment_id = p.shipment_id)
  and not exists (select 1 from confirms c
                   where c.kind = 'door' and json_extract(c.body, '$.shipmentId') = p.shipment_id
                     and json_extract(c.body, '$.collected') = 1)`;

/** How long a bar outlives its parcel's absence from the set: see `bar`. */
const BAR_KEPT_MS = 60 * 60_000;

export type Handout = 'opened' | 'collected' | 'left' | 'service_404';

export class OfflinePickups {
  private readonly now: () => number;
  /** The verifiers parsed once per set, not per typed code. */
  private parsed: { pickups: StoredPickup[]; verifiers: ParsedVerifier[] } | null = null;

  constructor(private readonly d: OfflinePickupDeps) {
    this.now = d.now ?? (() => Date.now());
    this.window = new AttemptWindow(d.db, 'pickup', PICKUP_LIMIT, this.now);
  }

  /**
   * The kiosk can hand out parcels on its own: it holds the verifier of at least one
   * parcel it may still hand out. Holding none, it has nothing to do alone, and an outage
   * is out of service, as before.
   */
  get ready(): boolean {
    if (this.distrusted) return false;
    const now = new Date(this.now()).toISOString();
    return (
      this.d.db.prepare(`select 1 from offline_pickups p where ${USABLE} limit 1`).get(now) !==
      undefined
    );
  }

  /** How many verifiers the kiosk holds (for the maintenance view and the figures). */
  held(): number {
    return (this.d.db.prepare('select count(*) as n from offline_pickups').get() as { n: number })
      .n;
  }

  /**
   * Brings the set up to date: the ETag of the set held is sent, so an unchanged set costs
   * a 304. A new set replaces the old one whole, in one transaction. One fetch at a time:
   * a call made while one runs fetches again after it.
   */
  readonly sync = serially(() => this.fetchSet());

  /** Doors barred (`bar`) since the fetch in flight began, by when: see `fetchSet`. */
  private readonly doorBars = new Map<number, number>();
  /** A bar that could not be written: no parcel is handed out on the kiosk's own this run. */
  private distrusted = false;

  /**
   * No code of the kept set opens these parcels any more, nor any parcel the set has in
   * `door`: the service opened that door through this kiosk online for their code, or
   * gave it, empty, to a deposit or a return (or this kiosk did, on its own). Kept on disk
   * before the door opens. A set fetched while the door is open, or read before the
   * collection, still has the parcel: an outage after the collection would otherwise open
   * the door again for the same code, by then perhaps holding another recipient's parcel.
   * A set in flight meanwhile has its parcels of that door barred as it lands. A bar is
   * lifted when the service has been told, after it, that the parcel stayed in its door
   * (`stayed`), and forgotten once a set read an hour after it no longer has the parcel.
   * Should the bar not be written (the disk), nothing is handed out on the kiosk's own
   * until it restarts.
   */
  bar(door: number, shipmentIds: readonly string[] = []): number {
    const db = this.d.db;
    const at = this.now();
    this.doorBars.set(door, at);
    try {
      db.transaction(() => {
        const add = db.prepare(
          `insert into offline_barred (shipment_id, barred_at) values (?, ?)
           on conflict (shipment_id) do update set barred_at = excluded.barred_at`,
        );
        for (const id of shipmentIds) add.run(id, at);
        this.barDoor(door, at);
      })();
    } catch (error) {
      this.distrusted = true;
      throw error;
    }
    return at;
  }

  /**
   * The door never opened (it would not, or the controller was down): the bars `bar` made
   * at `at` for these parcels and the door's are lifted, as nothing left the door. A bar
   * made since stays.
   */
  unbar(door: number, shipmentIds: readonly string[], at: number): void {
    const db = this.d.db;
    const lift = db.prepare('delete from offline_barred where shipment_id = ? and barred_at = ?');
    db.transaction(() => {
      for (const id of shipmentIds) lift.run(id, at);
      db.prepare(
        `delete from offline_barred where barred_at = ?
            and shipment_id in (select shipment_id from offline_pickups where door = ?)`,
      ).run(at, door);
    })();
  }

  /** Every parcel the set held has in `door`, barred as of `at`. */
  private barDoor(door: number, at: number): void {
    this.d.db
      .prepare(
        `insert into offline_barred (shipment_id, barred_at)
         select shipment_id, ? from offline_pickups where door = ?
         on conflict (shipment_id) do update set barred_at = max(barred_at, excluded.barred_at)`,
      )
      .run(at, door);
  }

  /**
   * The service took a confirm that the parcel stayed in its door, made at `occurredAt`
   * (ms): a bar from before then is lifted; a later one (the door opened again since) stays.
   */
  stayed(shipmentId: string, occurredAt: number): void {
    this.d.db
      .prepare('delete from offline_barred where shipment_id = ? and barred_at <= ?')
      .run(shipmentId, occurredAt);
  }

  private async fetchSet(): Promise<void> {
    const held = this.d.db.prepare("select etag from offline_sets where name = 'pickups'").get() as
      { etag: string | null } | undefined;
    const fetchedAt = this.now();
    const answer = await this.d.client.offlinePickups(held?.etag ?? null);
    // Doors barred while this fetch was out: its set may have been read before. Fetches go
    // one at a time, so the next begins after every bar made so far: none is needed after.
    const barsSince = [...this.doorBars].filter(([, at]) => at >= fetchedAt);
    this.doorBars.clear();
    if (!answer.ok || answer.value === null) return;
    const { set, etag } = answer.value;
    const insert = this.d.db.prepare(
      'insert into offline_pickups (shipment_id, door, collect_until, verifier) values (?, ?, ?, ?)',
    );
    this.d.db.transaction(() => {
      this.d.db.prepare('delete from offline_pickups').run();
      for (const p of set.pickups) insert.run(p.shipmentId, p.door, p.collectUntil, p.verifier);
      for (const [door, at] of barsSince) this.barDoor(door, at);
      this.d.db
        .prepare(
          `insert into offline_sets (name, etag, version, received_at) values ('pickups', ?, ?, ?)
           on conflict (name) do update set etag = excluded.etag, version = excluded.version,
                                            received_at = excluded.received_at`,
        )
        .run(etag, set.version, this.now());
      // A handout the service has settled (the parcel left its set and no report of it
      // waits) is forgotten; one it answered 404 is kept for the operator.
      this.d.db
        .prepare(
          `delete from offline_handouts
            where state in ('collected', 'left')
              and shipment_id not in (select shipment_id from offline_pickups)
              and not exists (select 1 from confirms
                               where json_extract(confirms.body, '$.shipmentId') = offline_handouts.shipment_id)`,
        )
        .run();
      // A bar whose parcel a set read an hour after it no longer has: collected, or gone
      // (a parcel still awaiting pickup is in the set by then: its verifier is made just
      // after its deposit).
      this.d.db
        .prepare(
          `delete from offline_barred
            where barred_at <= ? and shipment_id not in (select shipment_id from offline_pickups)`,
        )
        .run(fetchedAt - BAR_KEPT_MS);
    })();
    this.parsed = null;
    this.d.log.debug({ version: set.version, verifiers: set.pickups.length }, 'offline set');
  }

  /**
   * The spec's pickup limit, counted the way the service counts it (attemptWindow.ts),
   * on disk; online attempts are counted too, so going offline opens no fresh window.
   */
  readonly window: AttemptWindow;

  /** An attempt sent to the service (which judges it): counted here, not judged. */
  countOnline(): void {
    this.window.record();
  }

  /** Whether this kiosk handed the parcel out on its own: then it is never offered again. */
  handedOut(shipmentId: string): boolean {
    const row = this.d.db
      .prepare('select state from offline_handouts where shipment_id = ?')
      .get(shipmentId) as { state: Handout } | undefined;
    // Until the service has answered its confirm: then the service's word stands (a
    // parcel it handled otherwise may come back with a new code).
    return row?.state === 'opened' || row?.state === 'collected';
  }

  handout(shipmentId: string): { state: Handout; note: string | null } | undefined {
    return this.d.db
      .prepare('select state, note from offline_handouts where shipment_id = ?')
      .get(shipmentId) as { state: Handout; note: string | null } | undefined;
  }

  /**
   * The parcel a typed code opens, checked the way the service checks it: exactly the
   * characters typed, against the verifiers of parcels still collectable here and not
   * handed out already. Null for a wrong, foreign or already-collected code alike.
   */
  async match(
    code: string,
  ): Promise<{ shipmentId: string; door: number; others: string[] } | null> {
    if (this.distrusted) return null;
    const now = new Date(this.now()).toISOString();
    this.d.db.prepare('delete from offline_pickups where collect_until <= ?').run(now);
    this.parsed ??= (() => {
      const pickups = this.d.db
        .prepare('select shipment_id, door, collect_until, verifier from offline_pickups')
        .all() as StoredPickup[];
      const usable = pickups
        .map((p) => ({ p, v: parseVerifier(p.verifier) }))
        .filter((x): x is { p: StoredPickup; v: ParsedVerifier } => x.v !== null);
      return { pickups: usable.map((x) => x.p), verifiers: usable.map((x) => x.v) };
    })();
    const { pickups, verifiers } = this.parsed;
    const usable = this.d.db.prepare(
      `select 1 from offline_pickups p where p.shipment_id = ? and ${USABLE}`,
    );
    const matched = (await matchVerifiers(code, verifiers))
      .map((i) => pickups[i]!)
      .filter((p) => usable.get(p.shipment_id, now) !== undefined);
    const found = matched[0];
    if (!found) return null;
    // Parcels sharing a door share its code (issue 27): the others of that door go too.
    const others = matched
      .filter((p) => p.door === found.door && p.shipment_id !== found.shipment_id)
      .map((p) => p.shipment_id);
    return { shipmentId: found.shipment_id, door: found.door, others };
  }

  /**
   * The offline pickup: counted, checked, the door opened by the same door session as an
   * online pickup; the confirm goes through the durable queue when the door shuts (the
   * door session queues it, with that time). The parcel is marked handed out as its door
   * opens, so it is never offered twice; a door shut on the parcel (the sensor sees it
   * still inside) offers it again.
   */
  async pickup(code: string, counted = false): Promise<PickupResult> {
    const judged = counted ? this.window.judge() : this.window.attempt();
    if (!judged.allowed) {
      this.d.log.warn({ offline: true }, 'pickup attempts over the limit');
      return { kind: 'rate_limited', retryAfterSeconds: judged.retryAfterSeconds };
    }
    const parcel = await this.match(code);
    if (!parcel) return { kind: 'invalid_code' };
    const all = [parcel.shipmentId, ...parcel.others];
    const opened = this.d.db.prepare(
      `insert into offline_handouts (shipment_id, door, state, opened_at) values (?, ?, 'opened', ?)
       on conflict (shipment_id) do update set state = 'opened', opened_at = excluded.opened_at`,
    );
    for (const id of all) opened.run(id, parcel.door, new Date(this.now()).toISOString());
    this.d.log.info(
      { offline: true, door: parcel.door, shipment_id: parcel.shipmentId, parcels: all.length },
      'pickup verified on the kiosk',
    );
    const result = await this.d.openDoor(parcel.door, parcel.shipmentId, parcel.others);
    const session = this.d.currentSessionId();
    for (const id of all) {
      if ((result.kind === 'door_open' || result.kind === 'door_unknown') && session !== null)
        this.follow(session, id);
      else this.settle(id, 'left', null);
    }
    return result;
  }

  /** The door session's end decides: taken (collected), or left inside (offered again). */
  private follow(sessionId: number, shipmentId: string): void {
    const stop = this.d.onState((state) => {
      const s = state.session;
      if (!s || s.id !== sessionId || s.phase !== 'reported') return;
      stop();
      this.settle(shipmentId, s.itemPresent ? 'left' : 'collected', s.since);
    });
  }

  private settle(shipmentId: string, state: 'collected' | 'left', closedAt: string | null): void {
    this.d.db
      .prepare('update offline_handouts set state = ?, closed_at = ? where shipment_id = ?')
      .run(state, closedAt, shipmentId);
  }

  /**
   * The service answered the confirm of a parcel handed out here 404: it had the parcel
   * otherwise meanwhile (and alerts operations with both stories). The kiosk keeps its
   * story too, and says so in its log for monitoring.
   */
  confirmNotFound(shipmentId: string): void {
    const row = this.handout(shipmentId);
    if (!row || row.state !== 'collected') return;
    const note = 'collected here while offline; the service answered 404 (handled otherwise)';
    this.d.db
      .prepare("update offline_handouts set state = 'service_404', note = ? where shipment_id = ?")
      .run(note, shipmentId);
    this.d.log.warn({ alert: 'offline_pickup_conflict', shipment_id: shipmentId }, note);
  }
}
