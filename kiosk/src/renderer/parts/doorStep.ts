import type { DoorSession } from '../../bridge/api';

export type DoorStep =
  | 'opening'
  | 'open'
  | 'left_open'
  | 'did_not_open'
  | 'closed_ok'
  | 'closed_amiss'
  /** A cancelled return: take the parcel back out, shut the door. */
  | 'take_out'
  /** A cancelled return shut on the parcel: keep it as a return, or open again. */
  | 'choice'
  | 'cancelled'
  /** A take-out the kiosk cannot confirm: the staff settle it (the door may still be open). */
  | 'unsettled';

/** The session on screen when this person asked for a door (its id and phase time). */
export type Stale = Pick<DoorSession, 'id' | 'since'> | undefined;

export function staleOf(session: DoorSession | null): Stale {
  return session ? { id: session.id, since: session.since } : undefined;
}

// The same id with a later phase is this person's: the core may carry an id over at the
// same door, but a session's phase time only moves forward.
function isStale(session: DoorSession, stale: Stale): boolean {
  return stale !== undefined && session.id === stale.id && session.since <= stale.since;
}

/**
 * The step the screen shows for this door, from the core's session (the core judges
 * whether the door's contents are as expected). `stale` is the session that was on
 * screen before this door was asked for: it is not this person's.
 */
export function doorStep(session: DoorSession | null, door: number, stale?: Stale): DoorStep {
  if (!session || session.door !== door || isStale(session, stale)) return 'opening';
  switch (session.phase) {
    case 'unlocking':
    case 'unknown':
      return 'opening';
    case 'open':
      return 'open';
    case 'left_open':
      return 'left_open';
    case 'did_not_open':
      return 'did_not_open';
    case 'closed':
    case 'reported':
      return session.asExpected ? 'closed_ok' : 'closed_amiss';
    case 'take_out_and_close':
      return 'take_out';
    case 'closed_with_item_choice':
      return 'choice';
    case 'cancelled':
      return 'cancelled';
    case 'unsettled':
      return 'unsettled';
    default: {
      const never: never = session;
      throw new Error(`unknown door phase ${String(never)}`);
    }
  }
}
