import { DOOR_PROBLEMS, type DoorProblem, type KioskApi, type KioskMethod } from './api';

/** An argument the screen should never have sent: the caller's mistake, not the core's. */
export class BridgeArgumentError extends Error {}

const text = (value: unknown, max = 64): string => {
  if (typeof value !== 'string') throw new BridgeArgumentError('bridge argument must be a string');
  if (value.length > max)
    throw new BridgeArgumentError(`bridge argument must be at most ${max} characters`);
  return value;
};

const position = (value: unknown): number => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 9999)
    throw new BridgeArgumentError('door must be a whole number from 1 to 9999');
  return value;
};

const doorProblem = (value: unknown): DoorProblem => {
  const found = DOOR_PROBLEMS.find((p) => p === value);
  if (!found)
    throw new BridgeArgumentError(`door problem must be one of ${DOOR_PROBLEMS.join(', ')}`);
  return found;
};

/**
 * Calls one bridge method with arguments from the renderer, checked here: whatever the
 * screen sends, the host only ever passes short strings on to the core.
 */
export function dispatch(api: KioskApi, method: KioskMethod, args: unknown[]): Promise<unknown> {
  switch (method) {
    case 'getState':
      return api.getState();
    case 'pickup':
      return api.pickup(text(args[0], 10));
    case 'verifyCourier':
      return api.verifyCourier(text(args[0]));
    case 'deposit':
      return api.deposit(text(args[0]), text(args[1]));
    case 'checkSharedDoor':
      return api.checkSharedDoor(text(args[0]), text(args[1]), position(args[2]));
    case 'depositShared':
      return api.depositShared(text(args[0]), text(args[1]), position(args[2]));
    case 'depositAlternatives':
      return api.depositAlternatives(text(args[0]), text(args[1]));
    case 'rerouteDeposit':
      return api.rerouteDeposit(text(args[0]), text(args[1]), text(args[2]));
    case 'startReturn':
      return api.startReturn(text(args[0]));
    case 'cancelReturn':
      return api.cancelReturn();
    case 'finishReturn':
      return api.finishReturn();
    case 'reopenReturn':
      return api.reopenReturn();
    case 'collectReturns':
      return api.collectReturns(text(args[0]));
    case 'stopCollecting':
      return api.stopCollecting();
    case 'reportDoorProblem':
      return api.reportDoorProblem(doorProblem(args[0]));
    case 'readSensors':
      return api.readSensors();
    case 'technicianLogin':
      return api.technicianLogin(text(args[0], 12));
    case 'enrol':
      return api.enrol(text(args[0], 12), text(args[1], 40));
    default: {
      const unknown: never = method;
      throw new TypeError(`no bridge method ${String(unknown)}`);
    }
  }
}
