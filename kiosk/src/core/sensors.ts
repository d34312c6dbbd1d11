import type { LockBoard } from '@locker/lock-driver';
import type { Door } from '@locker/shared';
import type { SensorMismatch, SensorReading } from '../bridge/api';
import type { KioskStateStore } from './kioskState';
import type { KioskLog } from './log';

/**
 * Where the service and a door's sensors disagree: an item in a door the service counts
 * as free, or a shut door reading empty where the service expects a parcel. A door the
 * service does not list, or whose board is silent, is no disagreement.
 */
export function mismatchOf(
  door: Pick<Door, 'status' | 'parcel'> | undefined,
  sensed: { closed: boolean; itemPresent: boolean },
): SensorMismatch | null {
  if (!door) return null;
  if (door.status === 'available' && sensed.itemPresent) return 'item_in_free_door';
  if (door.parcel && sensed.closed && !sensed.itemPresent) return 'empty_where_parcel_expected';
  return null;
}

/**
 * Reads every door's sensors once, each judged against the service's grid. Never throws:
 * a failure reads as `board_unreachable`. The controller's health (boards silent, doors
 * unknown) is judged by the door watch's reads alone (DoorSupervisor), one writer in bus
 * order; this read judges only what the watch cannot see, a bus that cannot be read at
 * all (an adapter unplugged: the watch waits that out).
 */
export async function readController(
  board: LockBoard,
  store: KioskStateStore,
  log: KioskLog,
): Promise<SensorReading> {
  try {
    const { doors, boards } = await board.readDoors();
    if (!boards.some((b) => b.reachable)) return { kind: 'board_unreachable' };
    const grid = new Map(store.state.cabinet?.doors.map((d) => [d.position, d]));
    return {
      kind: 'sensors',
      doors: doors.map((d) =>
        d.known
          ? {
              position: d.position,
              known: true,
              closed: d.closed,
              itemPresent: d.itemPresent,
              mismatch: mismatchOf(grid.get(d.position), d),
            }
          : { position: d.position, known: false },
      ),
    };
  } catch (error) {
    store.setHealth({ controllerReachable: false });
    log.warn({ error: String(error) }, 'door controller unreachable');
    return { kind: 'board_unreachable' };
  }
}
