import { outOfService as cannotServe, type KioskState, type OnItsOwn } from '../bridge/api';
import type { OutOfServiceReason } from './screens/OutOfServiceScreen';

// Readings of the core's state the screens share, in one place. The core judges; these
// only pick what the screen needs.

/** The core still drives or watches a door: no idle timeout, no out-of-service screen. */
export function doorIsOpen(state: KioskState): boolean {
  return state.session?.active ?? false;
}

/** Why nobody can be served right now, or null when the locker works (maybe degraded). */
export function outOfService(state: KioskState): OutOfServiceReason | null {
  const condition = state.condition;
  if (!cannotServe(condition) || workingAlone(state)) return null;
  return condition as OutOfServiceReason;
}

/**
 * The service is unreachable but the locker works on its own with what it kept: which
 * tasks it still does (the core decides); null when it is not working on its own.
 */
export function workingAlone(state: KioskState): OnItsOwn | null {
  return state.condition === 'service_unreachable' ? state.onItsOwn : null;
}

/** The cabinet's columns of doors as they physically stand, from the cabinet file. */
export function cabinetColumns(state: KioskState): number[][] | null {
  return state.layout?.columns ?? null;
}

/** Where the reason's sentence is: the door supervision's in its own block of texts. */
export function reasonKey(reason: OutOfServiceReason) {
  return reason === 'doors_untrusted'
    ? ('supervision.untrusted' as const)
    : (`outOfService.${reason}` as const);
}
