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
  open: ['left_open', 'closed', 'take_out_and_close'],
  left_open: ['closed', 'take_out_and_close'],
  unknown: ['left_open', 'closed', 'take_out_and_close'],
  closed: ['reported'],
  take_out_and_close: ['closed_with_item_choice', 'cancelled'],
  closed_with_item_choice: ['reported', 'unlocking'],
  // A reopened door of a cancelled return that would not open: it holds the parcel, so
  // the return is recorded after all.
  did_not_open: ['reported'],
  reported: [],
  cancelled: [],
};

/** The phases after which the core no longer drives or watches the door. */
const FINAL: ReadonlySet<DoorPhaseName> = new Set(['reported', 'did_not_open', 'cancelled']);

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

  constructor(
    private readonly tracker: SessionTracker,
    readonly id: number,
    readonly kind: SessionKind,
    readonly door: number,
    private readonly log: KioskLog,
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

  /** Moves to `next`; a move the machine does not allow is refused and logged. */
  to(next: DoorPhase, fields: object = {}): boolean {
    const from = this.current.phase;
    if (this.ended || !NEXT[from].includes(next.phase)) {
      this.log.error({ from, to: next.phase, ended: this.ended }, 'door session move refused');
      return false;
    }
    this.current = {
      id: this.id,
      kind: this.kind,
      door: this.door,
      expect: EXPECT[this.kind],
      active: !FINAL.has(next.phase),
      since: new Date().toISOString(),
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

/** Numbers sessions and tells the screen about the latest one. */
export class SessionTracker {
  private next = 1;
  private latest: Session | null = null;

  constructor(
    private readonly log: KioskLog,
    private readonly publish: (session: DoorSession | null) => void,
  ) {}

  begin(kind: SessionKind, door: number): Session {
    const id = this.next++;
    const session = new Session(this, id, kind, door, this.log.child({ session: id, kind, door }));
    this.latest = session;
    this.publish(session.state);
    return session;
  }

  /** The session the screen shows, if it is still of this kind. */
  current(kind?: SessionKind): Session | null {
    return this.latest && (!kind || this.latest.kind === kind) ? this.latest : null;
  }

  changed(session: Session): void {
    if (session === this.latest) this.publish(session.state);
  }

  clear(): void {
    this.latest = null;
    this.publish(null);
  }
}
