import { describe, expect, it } from 'vitest';
import type { DoorPhaseName } from '../bridge/api';
import {
  reportOnClose,
  reportOnFailedUnlock,
  returnCancellable,
  returnClosedStep,
  takeOutcome,
  unlockStep,
  unsettledEvent,
  type Visit,
} from './doorSteps';

const pickup: Visit = { kind: 'pickup', shipmentId: 'shp-1', trackingNumber: 'TRK0' };
const deposit: Visit = { kind: 'deposit', courierNo: 'C7', trackingNumber: 'TRK1' };
const ret: Visit = { kind: 'return', returnId: 'ret-1' };
const collect: Visit = { kind: 'collect', courierNo: 'C7', trackingNumber: 'TRK2' };

describe('what an unlock came to', () => {
  it('open when seen open after the pulse; found open when already open (no pulse)', () => {
    expect(unlockStep({ outcome: 'opened', pulses: 1 })).toEqual({
      unlocked: 'open',
      phase: 'open',
    });
    expect(unlockStep({ outcome: 'already_open', pulses: 0 })).toEqual({
      unlocked: 'found_open',
      phase: 'open',
    });
  });

  it('a door that stayed shut after the pulse did not open: a fault', () => {
    expect(unlockStep({ outcome: 'did_not_open', pulses: 1 })).toEqual({
      unlocked: 'did_not_open',
      phase: 'did_not_open',
    });
  });

  it('a board silent after the pulse leaves the door unknown; silent before it, nothing was sent', () => {
    expect(unlockStep({ outcome: 'unknown', pulses: 1 })).toEqual({
      unlocked: 'unknown',
      phase: 'unknown',
    });
    expect(unlockStep({ outcome: 'unknown', pulses: 0 })).toEqual({
      unlocked: 'controller_down',
      phase: 'did_not_open',
    });
  });
});

describe('what a shut door reports, the sensor deciding', () => {
  it('a pickup is collected unless the parcel is still inside', () => {
    expect(reportOnClose(pickup, false)).toEqual({
      kind: 'door',
      body: { shipmentId: 'shp-1', collected: true },
    });
    expect(reportOnClose(pickup, true)).toEqual({
      kind: 'door',
      body: { shipmentId: 'shp-1', collected: false },
    });
  });

  it('a deposit shut empty is undone; shut on the parcel, nothing to say', () => {
    expect(reportOnClose(deposit, false)).toEqual({
      kind: 'deposit_undo',
      body: { courierNo: 'C7', trackingNumber: 'TRK1' },
    });
    expect(reportOnClose(deposit, true)).toBeNull();
  });

  it('a return is deposited only with the parcel inside', () => {
    expect(reportOnClose(ret, true)).toEqual({
      kind: 'return',
      body: { returnId: 'ret-1', deposited: true },
    });
    expect(reportOnClose(ret, false)).toEqual({
      kind: 'return',
      body: { returnId: 'ret-1', deposited: false },
    });
  });

  it('a courier took a parcel out only if its door is empty', () => {
    expect(reportOnClose(collect, false)).toEqual({
      kind: 'return_taken',
      body: { courierNo: 'C7', trackingNumber: 'TRK2' },
    });
    expect(reportOnClose(collect, true)).toBeNull();
  });
});

describe('what a door that never opened reports for its parcel', () => {
  it('a pickup is not collected, a return is released, whatever the cause', () => {
    for (const unlocked of ['did_not_open', 'controller_down'] as const) {
      expect(reportOnFailedUnlock(pickup, unlocked)).toEqual({
        kind: 'door',
        body: { shipmentId: 'shp-1', collected: false },
      });
      expect(reportOnFailedUnlock(ret, unlocked)).toEqual({
        kind: 'return',
        body: { returnId: 'ret-1', deposited: false },
      });
      expect(reportOnFailedUnlock(collect, unlocked)).toBeNull();
    }
  });

  it('a deposit is undone when the controller is down, and left for another door when jammed', () => {
    expect(reportOnFailedUnlock(deposit, 'controller_down')).toEqual({
      kind: 'deposit_undo',
      body: { courierNo: 'C7', trackingNumber: 'TRK1' },
    });
    expect(reportOnFailedUnlock(deposit, 'did_not_open')).toBeNull();
  });
});

describe('a return cancelled', () => {
  it('only while its door is open, or may be', () => {
    const phases: DoorPhaseName[] = [
      'unlocking',
      'open',
      'left_open',
      'unknown',
      'did_not_open',
      'closed',
      'reported',
      'take_out_and_close',
      'closed_with_item_choice',
      'cancelled',
    ];
    expect(phases.filter(returnCancellable)).toEqual(['open', 'left_open', 'unknown']);
  });

  it('is released only once seen shut empty; shut on the parcel, the customer is asked', () => {
    expect(returnClosedStep(false, true)).toBe('record');
    expect(returnClosedStep(false, false)).toBe('record');
    expect(returnClosedStep(true, false)).toBe('release');
    expect(returnClosedStep(true, true)).toBe('ask');
  });
});

describe('a take-out judged on evidence', () => {
  const opened = { how: 'opened' as const, before: { itemPresent: true } };
  const unknown = (itemBefore: boolean | null) => ({
    how: 'unknown' as const,
    before: itemBefore === null ? null : { itemPresent: itemBefore },
  });

  it('seen opening after the pulse and then shut: the sensor decides', () => {
    expect(takeOutcome(opened, { shut: true, itemPresent: false })).toBe('taken');
    expect(takeOutcome(opened, { shut: true, itemPresent: true })).toBe('left_inside');
  });

  it('found open, or never seen shut: never confirmed by the kiosk, whatever the sensor says', () => {
    const found = { how: 'found_open' as const, before: { itemPresent: false } };
    expect(takeOutcome(found, { shut: true, itemPresent: false })).toEqual({
      unsettled: 'found_open',
    });
    expect(takeOutcome(found, { shut: false, itemPresent: false })).toEqual({
      unsettled: 'found_open',
    });
    expect(takeOutcome(opened, { shut: false, itemPresent: false })).toEqual({
      unsettled: 'never_shut',
    });
    expect(takeOutcome(opened, { shut: false, itemPresent: null })).toEqual({
      unsettled: 'never_shut',
    });
  });

  it('a board silent after the pulse: gone from a shut door counts only if it was seen inside before', () => {
    expect(takeOutcome(unknown(true), { shut: true, itemPresent: false })).toBe('taken');
    expect(takeOutcome(unknown(true), { shut: true, itemPresent: true })).toBe('left_inside');
    expect(takeOutcome(unknown(false), { shut: true, itemPresent: false })).toEqual({
      unsettled: 'not_seen_open',
    });
    expect(takeOutcome(unknown(null), { shut: true, itemPresent: false })).toEqual({
      unsettled: 'not_seen_open',
    });
  });

  it('the event asking the service to settle names the door, the parcel and the cause', () => {
    expect(unsettledEvent(4, pickup, 'never_shut', false)).toEqual({
      position: 4,
      kind: 'unsettled',
      itemPresent: false,
      visit: 'pickup',
      cause: 'never_shut',
      trackingNumber: 'TRK0',
      shipmentId: 'shp-1',
    });
  });
});
