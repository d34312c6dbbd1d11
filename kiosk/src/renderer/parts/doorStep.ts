import type { DoorSession } from '../../bridge/api';

/** What the door should hold once shut: a parcel (deposit, return) or nothing (pickup). */
export type Expect = 'item' | 'empty';

export type DoorStep = 'opening' | 'open' | 'left_open' | 'closed_ok' | 'closed_amiss';

/** The step the screen shows for this door, from the core's session. */
export function doorStep(session: DoorSession | null, door: number, expect: Expect): DoorStep {
  if (!session || session.door !== door) return 'opening';
  switch (session.phase) {
    case 'open':
      return 'open';
    case 'left_open':
      return 'left_open';
    case 'closed':
      return Boolean(session.itemPresent) === (expect === 'item') ? 'closed_ok' : 'closed_amiss';
    default: {
      const never: never = session.phase;
      throw new Error(`unknown door phase ${String(never)}`);
    }
  }
}
