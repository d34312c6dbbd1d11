import type { KioskState } from '../bridge/api';
import type { OutOfServiceReason } from './screens/OutOfServiceScreen';

/** Readings of the core's state the screens share, in one place. */

/** A door is open (or opening) for someone: no idle timeout, no out-of-service screen. */
export function doorIsOpen(state: KioskState): boolean {
  return state.session !== null && state.session.phase !== 'closed';
}

/** Why nobody can be served right now, or null when the locker works. */
export function outOfService(_state: KioskState): OutOfServiceReason | null {
  return null;
}

/** The cabinet's columns of doors as they physically stand, from the cabinet file. */
export function cabinetColumns(_state: KioskState): number[][] | null {
  return null;
}
