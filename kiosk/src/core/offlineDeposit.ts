import { SIZES, type Size } from '@locker/shared';
import { matchVerifiers, parseVerifier, type ParsedVerifier } from '@locker/shared/verifier';
import type { KioskState, Refusal, VerifyResult } from '../bridge/api';
import { AttemptWindow } from './attemptWindow';
import type { TerminalClient } from './client';
import type { KioskDatabase } from './database';
import type { KioskLog } from './log';
import type { ReportQueue } from './reportQueue';
import { serially } from './serially';

// A courier's deposit while the service cannot be reached (docs/terminal-extensions.md,
// "Offline operation"). While online the kiosk keeps its station's doors, the parcels the
// service expects there (tracking number and size, nothing personal) and verifiers of the
// couriers who deposit there. Offline a verified courier's tracking number is matched
// locally, the door chosen with the spec's rule (the smallest free door the parcel fits)
// from what the kiosk knows its doors hold, opened by the same door session as online,
// and the deposit reported with its door through the durable queue: the service records
// it on receipt and only then sends the recipient's code.

/** Courier-number lookups: the extension's 10 a minute (docs/terminal-extensions.md). */
export const COURIER_LIMIT = 10;

export interface OfflineDepositDeps {
  db: KioskDatabase;
  client: TerminalClient;
  queue: ReportQueue;
  log: KioskLog;
  onState(listener: (state: KioskState) => void): () => void;
  now?: () => number;
}

export type DepositState = 'queued' | 'recorded' | 'undone' | 'service_404';

const fits = (parcel: Size, door: Size) => SIZES.indexOf(door) >= SIZES.indexOf(parcel);

export class OfflineDeposits {
  private readonly now: () => number;
  readonly window: AttemptWindow;
  /** Courier numbers verified this run (online or on the kiosk's own). */
  private readonly verified = new Set<string>();
  private couriers: ParsedVerifier[] | null = null;

  constructor(private readonly d: OfflineDepositDeps) {
    this.now = d.now ?? (() => Date.now());
    this.window = new AttemptWindow(d.db, 'courier', COURIER_LIMIT, this.now);
  }

  /**
   * Couriers can deposit on the kiosk's own: it expects at least one parcel and knows at
   * least one courier of this station. Else an outage is out of service for them.
   */
  get ready(): boolean {
    return (
      this.d.db
        .prepare(
          'select 1 where exists (select 1 from offline_expected) and exists (select 1 from offline_couriers)',
        )
        .get() !== undefined
    );
  }

  /** The service verified this courier (online): they may go on depositing offline. */
  verifiedOnline(courierNo: string): void {
    this.verified.add(courierNo);
  }

  /**
   * Brings the set up to date by ETag; a new set replaces the old one in one transaction.
   * One fetch at a time: a call made while one runs fetches again after it.
   */
  readonly sync = serially(() => this.fetchSet());

  /** Changes noted by `changedOnline`: a fetch that saw one land meanwhile is not kept. */
  private changes = 0;

  /**
   * What the service recorded through this kiosk online since the set was read: a door
   * filled (a deposit, a return's door held) and a parcel no longer expected here
   * (deposited, re-routed). Until the next set the door is not free here and the parcel
   * not expected, so an outage within the minute neither offers that door nor takes that
   * parcel in again. The set's ETag is forgotten, so the next fetch brings the whole set
   * (a 304 would keep this guess, say after the deposit was undone); a fetch in flight
   * meanwhile, perhaps read before the change, is not kept.
   */
  changedOnline(change: { door?: number; trackingNumber?: string }): void {
    const db = this.d.db;
    db.transaction(() => {
      if (change.door !== undefined)
        db.prepare('update offline_doors set free = 0 where position = ?').run(change.door);
      if (change.trackingNumber !== undefined)
        db.prepare('delete from offline_expected where tracking_number = ?').run(
          change.trackingNumber,
        );
      db.prepare("update offline_sets set etag = null where name = 'deposits'").run();
    })();
    this.changes++;
  }

  private async fetchSet(): Promise<void> {
    const held = this.d.db
      .prepare("select etag from offline_sets where name = 'deposits'")
      .get() as { etag: string | null } | undefined;
    const changes = this.changes;
    const answer = await this.d.client.offlineDeposits(held?.etag ?? null);
    if (!answer.ok || answer.value === null || changes !== this.changes) return;
    const { set, etag } = answer.value;
    const db = this.d.db;
    db.transaction(() => {
      db.prepare('delete from offline_doors').run();
      db.prepare('delete from offline_expected').run();
      db.prepare('delete from offline_couriers').run();
      const door = db.prepare('insert into offline_doors (position, size, free) values (?, ?, ?)');
      for (const d of set.doors) door.run(d.position, d.size, d.free ? 1 : 0);
      const parcel = db.prepare(
        'insert into offline_expected (tracking_number, size) values (?, ?)',
      );
      for (const e of set.expected) parcel.run(e.trackingNumber, e.size);
      const courier = db.prepare('insert into offline_couriers (verifier) values (?)');
      for (const v of set.couriers) courier.run(v);
      db.prepare(
        `insert into offline_sets (name, etag, version, received_at) values ('deposits', ?, '', ?)
         on conflict (name) do update set etag = excluded.etag, received_at = excluded.received_at`,
      ).run(etag, this.now());
      // What the service has settled (recorded, or undone) and no longer waits in the queue.
      db.prepare(
        `delete from offline_deposits
          where state in ('recorded', 'undone')
            and not exists (select 1 from confirms
                             where json_extract(confirms.body, '$.trackingNumber') = offline_deposits.tracking_number)`,
      ).run();
    })();
    this.couriers = null;
  }

  /** A courier's number checked on the kiosk: the same limit as online, no name kept. */
  async verifyCourier(courierNo: string): Promise<VerifyResult> {
    const judged = this.window.attempt();
    if (!judged.allowed)
      return { kind: 'rate_limited', retryAfterSeconds: judged.retryAfterSeconds };
    this.couriers ??= (
      this.d.db.prepare('select verifier from offline_couriers').all() as { verifier: string }[]
    )
      .map((r) => parseVerifier(r.verifier))
      .filter((v): v is ParsedVerifier => v !== null);
    // Not among the couriers of this station: a courier new here, or no courier at all;
    // only the service can tell, so it is no "unknown courier".
    if ((await matchVerifiers(courierNo, this.couriers)).length === 0)
      return { kind: 'unavailable' };
    this.verified.add(courierNo);
    // Nothing personal is kept on the kiosk: no name to greet them by.
    return { kind: 'verified', courierName: '', toTakeOut: null };
  }

  /**
   * The door for a deposit on the kiosk's own: the parcel must be one the service expects
   * here and not taken in already; the smallest free door it fits, ties to the lowest
   * position, from what the kiosk knows: the service's free doors, plus doors emptied by
   * pickups handed out here, minus doors filled here. The deposit is queued as the door
   * is chosen (with this time), before it opens: a door shut empty queues its undo after
   * it, and a door that will not open its fault, in that order.
   */
  assign(courierNo: string, trackingNumber: string): number | Refusal {
    if (!this.verified.has(courierNo)) return { kind: 'courier_not_verified' };
    const db = this.d.db;
    const parcel = db
      .prepare(
        `select e.size from offline_expected e
          where e.tracking_number = ?
            and not exists (select 1 from offline_deposits d
                             where d.tracking_number = e.tracking_number and d.state in ('queued', 'recorded'))`,
      )
      .get(trackingNumber) as { size: Size } | undefined;
    if (!parcel) return { kind: 'not_found' };
    const doors = db
      .prepare(
        `select position, size from offline_doors d
          where size is not null
            and (free = 1 or position in (select door from offline_handouts where state = 'collected'))
            and position not in (select door from offline_deposits where state in ('queued', 'recorded'))`,
      )
      .all() as { position: number; size: Size }[];
    const door = doors
      .filter((d) => fits(parcel.size, d.size))
      .sort((a, b) => SIZES.indexOf(a.size) - SIZES.indexOf(b.size) || a.position - b.position)[0];
    if (!door) return { kind: 'cabinet_full', size: parcel.size };
    const at = new Date(this.now());
    db.transaction(() => {
      db.prepare(
        `insert into offline_deposits (tracking_number, door, state, deposited_at) values (?, ?, 'queued', ?)
         on conflict (tracking_number) do update set door = excluded.door, state = 'queued',
           deposited_at = excluded.deposited_at, note = null`,
      ).run(trackingNumber, door.position, at.toISOString());
      this.d.queue.add('offline_deposit', { courierNo, trackingNumber, door: door.position }, at);
    })();
    this.d.log.info(
      { offline: true, door: door.position, tracking_number: trackingNumber },
      'deposit taken in on the kiosk',
    );
    return door.position;
  }

  /**
   * The door session of a deposit made on the kiosk's own came to rest shut empty: the
   * parcel never went in (the door's undo is queued), so the door is free again here.
   */
  follow(sessionId: number, trackingNumber: string): void {
    const stop = this.d.onState((state) => {
      const s = state.session;
      if (!s || s.id !== sessionId || s.phase !== 'reported') return;
      stop();
      if (!s.itemPresent) this.undone(trackingNumber);
    });
  }

  /**
   * The parcel never went in: its door did not open (`jammed`: the door is not offered
   * again here; its fault is queued), the controller was down, or it was shut empty. Its
   * undo or fault follows the deposit in the queue; here the parcel may be taken in again.
   */
  undone(trackingNumber: string, jammed = false): void {
    const db = this.d.db;
    db.transaction(() => {
      const row = this.deposit(trackingNumber);
      if (row && jammed)
        db.prepare('update offline_doors set free = 0 where position = ?').run(row.door);
      db.prepare("update offline_deposits set state = 'undone' where tracking_number = ?").run(
        trackingNumber,
      );
    })();
  }

  deposit(trackingNumber: string): { state: DepositState; door: number } | undefined {
    return this.d.db
      .prepare('select state, door from offline_deposits where tracking_number = ?')
      .get(trackingNumber) as { state: DepositState; door: number } | undefined;
  }

  /** The service answered a deposit made here: recorded (200) or not (404: both stories kept). */
  answered(trackingNumber: string, status: 200 | 404): void {
    const row = this.deposit(trackingNumber);
    if (!row || row.state !== 'queued') return;
    if (status === 200) {
      this.d.db
        .prepare("update offline_deposits set state = 'recorded' where tracking_number = ?")
        .run(trackingNumber);
      return;
    }
    const note = `taken in here into door ${row.door} while offline; the service could not record it (404)`;
    this.d.db
      .prepare(
        "update offline_deposits set state = 'service_404', note = ? where tracking_number = ?",
      )
      .run(note, trackingNumber);
    this.d.log.warn(
      { alert: 'offline_deposit_conflict', tracking_number: trackingNumber, door: row.door },
      note,
    );
  }
}
