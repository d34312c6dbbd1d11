import type { CabinetReading } from '@locker/lock-driver';
import type { LinkDoorState } from '@locker/shared';

/** Where the doors' states go: the live link, when it is up. */
export interface DoorStateSink {
  readonly connected: boolean;
  sendDoors(doors: LinkDoorState[], full: boolean): boolean;
}

const keyOf = (s: LinkDoorState) => `${s.known}${s.closed}${s.itemPresent}${s.inSession}`;

/**
 * Sends what changed in the doors' sensors while the link is up, from the door
 * supervision's readings of the cabinet (doorSupervision.ts: one read of the bus serves
 * both): every door once after each (re)connection, then each door whose state (open or
 * shut, item or not, whether a session uses it) differs from what was last sent.
 */
export class DoorStatePusher {
  private sent = new Map<number, string>();

  constructor(
    private readonly sink: DoorStateSink,
    /** Whether a door session (a person's or a remote open) is using this door now. */
    private readonly inSession: (door: number) => boolean,
  ) {}

  /** A new connection: the next reading goes out whole. */
  reset(): void {
    this.sent = new Map();
  }

  observe(reading: CabinetReading): void {
    if (!this.sink.connected) return;
    const states: LinkDoorState[] = reading.doors.map((d) =>
      d.known
        ? {
            position: d.position,
            known: true,
            closed: d.closed,
            itemPresent: d.itemPresent,
            inSession: this.inSession(d.position),
          }
        : {
            position: d.position,
            known: false,
            closed: null,
            itemPresent: null,
            inSession: this.inSession(d.position),
          },
    );
    const full = this.sent.size === 0;
    const changed = full ? states : states.filter((s) => this.sent.get(s.position) !== keyOf(s));
    if (changed.length === 0) return;
    if (this.sink.sendDoors(changed, full))
      for (const s of changed) this.sent.set(s.position, keyOf(s));
  }
}
