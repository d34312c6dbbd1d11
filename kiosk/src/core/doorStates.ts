import type { LockBoard } from '@locker/lock-driver';
import type { LinkDoorState } from '@locker/shared';
import type { KioskLog } from './log';

/** Where the doors' states go: the live link, when it is up. */
export interface DoorStateSink {
  readonly connected: boolean;
  sendDoors(doors: LinkDoorState[], full: boolean): boolean;
}

const keyOf = (s: LinkDoorState) => `${s.known}${s.closed}${s.itemPresent}${s.inSession}`;

/**
 * Reads the doors' sensors while the link is up and sends what changed: every door once
 * after each (re)connection, then each door whose state (open or shut, item or not,
 * whether a session uses it) differs from what was last sent.
 */
export class DoorStatePusher {
  private sent = new Map<number, string>();

  constructor(
    private readonly board: LockBoard,
    private readonly sink: DoorStateSink,
    /** The doors a door session (a person's or a remote open) is using now. */
    private readonly inSession: () => ReadonlySet<number>,
    private readonly log: KioskLog,
  ) {}

  /** A new connection: the next reading goes out whole. */
  reset(): void {
    this.sent = new Map();
  }

  async tick(): Promise<void> {
    if (!this.sink.connected) return;
    let reading;
    try {
      reading = await this.board.readDoors();
    } catch (error) {
      this.log.debug({ error: String(error) }, 'door states not read');
      return;
    }
    const busy = this.inSession();
    const states: LinkDoorState[] = reading.doors.map((d) =>
      d.known
        ? {
            position: d.position,
            known: true,
            closed: d.closed,
            itemPresent: d.itemPresent,
            inSession: busy.has(d.position),
          }
        : {
            position: d.position,
            known: false,
            closed: null,
            itemPresent: null,
            inSession: busy.has(d.position),
          },
    );
    const full = this.sent.size === 0;
    const changed = full ? states : states.filter((s) => this.sent.get(s.position) !== keyOf(s));
    if (changed.length === 0) return;
    if (this.sink.sendDoors(changed, full))
      for (const s of changed) this.sent.set(s.position, keyOf(s));
  }
}
