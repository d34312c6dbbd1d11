import type {
  DoorPhase,
  DoorPhaseName,
  DoorSession,
  Expectation,
  SessionKind,
} from '../bridge/api';
import type { KioskLog } from './log';

/** Every transition the door-session machine allows; anything else is a bug, logged. */
const NEXT: Record<DoorPhaseName, readonly DoorPhaseName[]> = {
  unlocking: ['open', 'did_not_open', 'unknown'],
  open: ['left_open', 'closed', 'take_out_and_close', 'unsettled'],
  left_open: ['closed', 'take_out_and_close', 'unsettled'],
  unknown: ['left_open', 'closed', 'take_out_and_close', 'unsettled'],
  closed: ['reported', 'unsettled'],
  take_out_and_close: ['closed_with_item_choice', 'cancelled'],
  closed_with_item_choice: ['reported', 'unlocking'],
  // A reopened door of a cancelled return that would not open: it holds the parcel, so
  // the return is recorded after all.
  did_not_open: ['reported'],
  reported: [],
  cancelled: [],
  unsettled: [],
};

/** The phases after which the core no longer drives or watches the door. */
const FINAL: ReadonlySet<DoorPhaseName> = new Set([
  'reported',
  'did_not_open',
  'cancelled',
  'unsettled',
]);

/** The parcel a session is for, as its reports name it. */
export interface SessionParcel {
  trackingNumber?: string;
  shipmentId?: string;
}

/**
 * How the door came to be open, for judging a take-out by evidence (doorSteps.ts
 * `takeOutcome`): seen opening after the pulse, found already open (no pulse), or the
 * board silent after the pulse; and what the door read just before.
 */
export interface Opening {
  how: 'opened' | 'found_open' | 'unknown';
  before: { closed: boolean; itemPresent: boolean } | null;
}

export const EXPECT: Record<SessionKind, Expectation> = {
  pickup: 'empty',
  collect: 'empty',
  deposit: 'item',
  return: 'item',
  remote: 'any',
};

/** What the sensor saw, judged against what the door should hold. */
export function judged(kind: SessionKind, itemPresent: boolean) {
  const expected = EXPECT[kind];
  return { itemPresent, asExpected: expected === 'any' || itemPresent === (expected === 'item') };
}

/** One door session: its phase, moved only through `to`, every move logged. */
export class Session {
  private current: DoorSession;
  /** Set when the session ended before a final phase (controller gone, an error). */
  private ended = false;
  /** Set by the unlock: how the door came to be open. */
  opening: Opening | null = null;
  /** Set by the unlock: a pulse went out (a door that did not open after one may open late). */
  pulsed = false;

  constructor(
    private readonly tracker: SessionTracker,
    readonly id: number,
    readonly kind: SessionKind,
    readonly door: number,
    private readonly log: KioskLog,
    readonly parcel: SessionParcel = {},
  ) {
    this.current = {
      id,
      kind,
      door,
      expect: EXPECT[kind],
      active: true,
      since: new Date().toISOString(),
      phase: 'unlocking',
    };
    this.log.info({ phase: 'unlocking' }, 'door session begins');
  }

  get phase(): DoorPhaseName {
    return this.current.phase;
  }

  get state(): DoorSession {
    return this.current;
  }

  get active(): boolean {
    return this.current.active;
  }

  /** The door stood open at the unlock: kept in every later phase, for the screen. */
  foundOpen(itemPresent: boolean): void {
    this.current = { ...this.current, foundOpen: { itemPresent } };
    this.log.warn({ item_present: itemPresent }, 'door found open at the unlock');
    this.tracker.changed(this);
  }

  /** Moves to `next`; a move the machine does not allow is refused and logged. */
  to(next: DoorPhase, fields: object = {}): boolean {
    const from = this.current.phase;
    if (this.ended || !NEXT[from].includes(next.phase)) {
      this.log.error({ from, to: next.phase, ended: this.ended }, 'door session move refused');
      return false;
    }
    const foundOpen = this.current.foundOpen;
    this.current = {
      id: this.id,
      kind: this.kind,
      door: this.door,
      expect: EXPECT[this.kind],
      active: !FINAL.has(next.phase),
      since: new Date().toISOString(),
      ...(foundOpen ? { foundOpen } : {}),
      ...next,
    };
    this.log.info({ from, to: next.phase, ...fields }, 'door session moves');
    this.tracker.changed(this);
    return true;
  }

  /** Stops driving the door where it stands (nothing more can be learned), logged why. */
  end(reason: string, fields: object = {}): void {
    if (!this.current.active) return;
    this.ended = true;
    this.current = { ...this.current, active: false, since: new Date().toISOString() };
    this.log.warn({ phase: this.current.phase, reason, ...fields }, 'door session ends');
    this.tracker.changed(this);
  }
}

/**
 * Numbers sessions and tells the screen about the latest one; knows which doors a session
 * drives or watches now (the door supervision leaves those to it) and tells `released`
 * when a session lets go of its door.
 */
export class SessionTracker {
  private next = 1;
  private latest: Session | null = null;
  private readonly driving = new Set<Session>();
  /** Told when a session stops driving its door (a final phase, or ended). */
  released: (session: Session) => void = () => {};

  constructor(
    private readonly log: KioskLog,
    private readonly publish: (session: DoorSession | null) => void,
  ) {}

  begin(kind: SessionKind, door: number, parcel: SessionParcel = {}): Session {
    const id = this.next++;
    const log = this.log.child({ session: id, kind, door });
    const session = new Session(this, id, kind, door, log, parcel);
    this.latest = session;
    this.driving.add(session);
    this.publish(session.state);
    return session;
  }

  /** A session drives or watches this door now. */
  activeAt(door: number): boolean {
    for (const session of this.driving) if (session.door === door) return true;
    return false;
  }

  /** The session the screen shows, if it is still of this kind. */
  current(kind?: SessionKind): Session | null {
    return this.latest && (!kind || this.latest.kind === kind) ? this.latest : null;
  }

  changed(session: Session): void {
    if (!session.active && this.driving.delete(session)) this.released(session);
    if (session === this.latest) this.publish(session.state);
  }

  clear(): void {
    this.latest = null;
    this.publish(null);
  }
}
