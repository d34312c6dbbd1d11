import type { OpenResult } from '@locker/lock-driver';
import type { DoorPhaseName, UnsettledCause } from '../bridge/api';
import type { ReportBody, ReportKind } from './client';

// The decisions of a door visit, apart from doing them (doorFlows.ts does): what an
// unlock came to, what the sensor's verdict reports, when a return may be cancelled.
// Pure: no board, no queue, no clock.

/** What an unlock came to, for the flow that asked for it. */
export type Unlocked =
  /** Seen open after the pulse. */
  | 'open'
  /** Already open before it: no pulse went out; reported as found open. */
  | 'found_open'
  /** The controller fell silent after the pulse: the door may be open; watching goes on. */
  | 'unknown'
  /** The pulse went out and the door stayed shut: a fault to report. */
  | 'did_not_open'
  /** Nothing was sent (controller not connected or silent before the pulse): no fault. */
  | 'controller_down';

/** The board's answer to one unlock: the flow's next step and the session's next phase. */
export function unlockStep(result: Pick<OpenResult, 'outcome' | 'pulses'>): {
  unlocked: Unlocked;
  phase: Extract<DoorPhaseName, 'open' | 'unknown' | 'did_not_open'>;
} {
  switch (result.outcome) {
    case 'opened':
      return { unlocked: 'open', phase: 'open' };
    case 'already_open':
      return { unlocked: 'found_open', phase: 'open' };
    case 'did_not_open':
      return { unlocked: 'did_not_open', phase: 'did_not_open' };
    case 'unknown':
      // A board silent before the pulse could not pulse either: the door is shut as it was.
      return result.pulses === 0
        ? { unlocked: 'controller_down', phase: 'did_not_open' }
        : { unlocked: 'unknown', phase: 'unknown' };
    default: {
      const unknown: never = result.outcome;
      throw new Error(`unknown open outcome ${String(unknown)}`);
    }
  }
}

/** A report as the flows queue it: the time it happened is added when it is queued. */
export type QueuedAs = {
  [K in ReportKind]: { kind: K; body: Omit<ReportBody<K>, 'occurred_at'> };
}[ReportKind];

/** What a door visit was for, with what its reports name. */
export type Visit =
  // A pickup made on its own (offline) knows the shipment, not its tracking number.
  | { kind: 'pickup'; shipmentId: string; trackingNumber?: string }
  | { kind: 'deposit'; courierNo: string; trackingNumber: string }
  | { kind: 'return'; returnId: string; trackingNumber?: string }
  | { kind: 'collect'; courierNo: string; trackingNumber: string };

/** A door event as the flows and the door supervision queue it (the queue adds its id). */
export type DoorEventAs = Omit<ReportBody<'door_event'>, 'occurred_at' | 'eventId'>;

/** The parcel a visit names in a door event. */
export function parcelOfVisit(visit: Visit): { trackingNumber?: string; shipmentId?: string } {
  return {
    ...(visit.trackingNumber ? { trackingNumber: visit.trackingNumber } : {}),
    ...(visit.kind === 'pickup' ? { shipmentId: visit.shipmentId } : {}),
  };
}

/** The door stood open at the unlock: no pulse went out; what its item sensor read. */
export function foundOpenEvent(door: number, visit: Visit, itemPresent: boolean): DoorEventAs {
  return {
    position: door,
    kind: 'found_open',
    itemPresent,
    visit: visit.kind,
    ...parcelOfVisit(visit),
  };
}

/** The board fell silent after the pulse: the door may or may not have opened (no fault). */
export function unlockUnknownEvent(door: number, visit: Visit): DoorEventAs {
  return {
    position: door,
    kind: 'unlock_unknown',
    itemPresent: null,
    visit: visit.kind,
    ...parcelOfVisit(visit),
  };
}

/**
 * A take-out (a pickup, a courier's take-out) judged on evidence, once the door was seen
 * shut, or given up on open (`shut: false`):
 * - seen opening after the pulse and then shut: the item sensor decides (`taken` when
 *   empty, `left_inside` when not);
 * - the board silent after the pulse, then shut: still inside is `left_inside` (true
 *   either way); empty is `taken` only if the sensor saw the parcel inside just before
 *   the pulse (it cannot leave a shut door but through it), else it is unsettled;
 * - found open at the unlock, or never seen shut: never confirmed by the kiosk alone,
 *   `unsettled` for the service to settle, whatever the sensor says.
 */
export function takeOutcome(
  opening: { how: 'opened' | 'found_open' | 'unknown'; before: { itemPresent: boolean } | null },
  end: { shut: boolean; itemPresent: boolean | null },
): 'taken' | 'left_inside' | { unsettled: UnsettledCause } {
  if (opening.how === 'found_open') return { unsettled: 'found_open' };
  if (!end.shut) return { unsettled: 'never_shut' };
  if (end.itemPresent) return 'left_inside';
  if (opening.how === 'opened') return 'taken';
  return opening.before?.itemPresent ? 'taken' : { unsettled: 'not_seen_open' };
}

/** The door event asking the service to settle a take-out the kiosk cannot confirm. */
export function unsettledEvent(
  door: number,
  visit: Visit,
  cause: UnsettledCause,
  itemPresent: boolean | null,
): DoorEventAs {
  return {
    position: door,
    kind: 'unsettled',
    itemPresent,
    visit: visit.kind,
    cause,
    ...parcelOfVisit(visit),
  };
}

/**
 * The report once the door is seen shut, the sensor deciding: a pickup is collected
 * unless the parcel is still inside; a deposit shut empty is undone (its recipient must
 * not be sent to an empty door); a return is deposited only with the parcel inside; a
 * courier took a parcel out only if the door is empty. Null: nothing to tell the service.
 */
export function reportOnClose(visit: Visit, itemPresent: boolean): QueuedAs | null {
  switch (visit.kind) {
    case 'pickup':
      return { kind: 'door', body: { shipmentId: visit.shipmentId, collected: !itemPresent } };
    case 'deposit':
      return itemPresent
        ? null
        : {
            kind: 'deposit_undo',
            body: { courierNo: visit.courierNo, trackingNumber: visit.trackingNumber },
          };
    case 'return':
      return { kind: 'return', body: { returnId: visit.returnId, deposited: itemPresent } };
    case 'collect':
      return itemPresent
        ? null
        : {
            kind: 'return_taken',
            body: { courierNo: visit.courierNo, trackingNumber: visit.trackingNumber },
          };
    default: {
      const unknown: never = visit;
      throw new Error(`unknown visit ${String(unknown)}`);
    }
  }
}

/**
 * The door never opened (`did_not_open`: its fault is reported first, by the caller), or
 * no unlock was sent: what the visit's parcel reports. The door is shut and as it was: a
 * pickup is not collected, a return's hold is released (the door is empty). A deposit is
 * undone only when the controller is down: a door that did not open is reported and the
 * service assigns another. A courier's take-out just goes on to the next door.
 */
export function reportOnFailedUnlock(
  visit: Visit,
  unlocked: 'did_not_open' | 'controller_down',
): QueuedAs | null {
  switch (visit.kind) {
    case 'pickup':
      return { kind: 'door', body: { shipmentId: visit.shipmentId, collected: false } };
    case 'return':
      return { kind: 'return', body: { returnId: visit.returnId, deposited: false } };
    case 'deposit':
      return unlocked === 'controller_down'
        ? {
            kind: 'deposit_undo',
            body: { courierNo: visit.courierNo, trackingNumber: visit.trackingNumber },
          }
        : null;
    case 'collect':
      return null;
    default: {
      const unknown: never = visit;
      throw new Error(`unknown visit ${String(unknown)}`);
    }
  }
}

/** A return can be cancelled only while its door is open (or may be): never once shut. */
export function returnCancellable(phase: DoorPhaseName): boolean {
  return phase === 'open' || phase === 'left_open' || phase === 'unknown';
}

/**
 * A return's door seen shut: not cancelled, the sensor decides (`record`); cancelled and
 * empty, the hold is released (`release`); cancelled but shut on the parcel, that is no
 * cancel: the customer is asked to finish or open again (`ask`), and it is never released.
 */
export function returnClosedStep(
  cancelled: boolean,
  itemPresent: boolean,
): 'record' | 'release' | 'ask' {
  if (!cancelled) return 'record';
  return itemPresent ? 'ask' : 'release';
}
