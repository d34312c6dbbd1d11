import type { ServiceCondition } from '../bridge/api';

/** What the core knows of the service and the controller, from which the condition follows. */
export interface Health {
  /** The last heartbeat was answered 401: the operator disabled or revoked this terminal. */
  refused: boolean;
  /** The last call to the service got an answer (no network error, no gateway error). */
  serviceReachable: boolean;
  /** The door controller answered the last reading (at least one board). */
  controllerReachable: boolean;
  /** Doors of boards that did not answer the last reading. */
  unknownDoors: number[];
  /** Doors of boards whose every door reads open at once (suspect polarity). */
  suspectDoors: number[];
  /** Every door of the cabinet: when all are suspect, no door can be opened. */
  doorCount: number;
}

export const HEALTHY: Health = {
  refused: false,
  serviceReachable: true,
  controllerReachable: true,
  unknownDoors: [],
  suspectDoors: [],
  doorCount: 0,
};

/** The one condition the screen shows: the most serious that holds. */
export function conditionOf(health: Health): ServiceCondition {
  if (health.refused) return 'terminal_refused';
  if (!health.serviceReachable) return 'service_unreachable';
  if (!health.controllerReachable) return 'controller_unreachable';
  if (health.doorCount > 0 && health.suspectDoors.length >= health.doorCount)
    return 'doors_untrusted';
  if (health.unknownDoors.length > 0 || health.suspectDoors.length > 0) return 'degraded';
  return 'ok';
}
