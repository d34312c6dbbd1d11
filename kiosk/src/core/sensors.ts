import type { LockBoard } from '@locker/lock-driver';
import type { SensorReading } from '../bridge/api';
import type { KioskStateStore } from './kioskState';
import type { KioskLog } from './log';

/**
 * Reads every door's sensors once; the reading also judges the controller (unreachable,
 * or some boards silent: their doors unknown). Never throws: a failure reads as
 * `board_unreachable`.
 */
export async function readController(
  board: LockBoard,
  store: KioskStateStore,
  log: KioskLog,
): Promise<SensorReading> {
  try {
    const { doors, boards } = await board.readDoors();
    const reachable = boards.some((b) => b.reachable);
    store.setHealth({
      controllerReachable: reachable,
      unknownDoors: doors.filter((d) => !d.known).map((d) => d.position),
    });
    if (!reachable) return { kind: 'board_unreachable' };
    return {
      kind: 'sensors',
      doors: doors.map((d) =>
        d.known
          ? { position: d.position, known: true, closed: d.closed, itemPresent: d.itemPresent }
          : { position: d.position, known: false },
      ),
    };
  } catch (error) {
    store.setHealth({ controllerReachable: false });
    log.warn({ error: String(error) }, 'door controller unreachable');
    return { kind: 'board_unreachable' };
  }
}
