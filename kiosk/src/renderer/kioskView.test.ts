import { describe, expect, it } from 'vitest';
import {
  INITIAL_STATE,
  type DoorPhase,
  type DoorSession,
  type KioskState,
  type ServiceCondition,
} from '../bridge/api';
import { cabinetColumns, doorIsOpen, outOfService } from './kioskView';
import { defaultColumns } from './parts/CabinetMap';
import { doorStep, staleOf } from './parts/doorStep';
import { group } from './parts/Keypad';
import { isRefusal } from './parts/useRefusal';

// The screen's pure readings of the core's state: what it shows follows from the state
// alone, checked here without a browser.

const state = (change: Partial<KioskState>): KioskState => ({ ...INITIAL_STATE, ...change });

function session(
  phase: DoorPhase,
  extra: Partial<Pick<DoorSession, 'id' | 'door' | 'since' | 'active'>> = {},
): DoorSession {
  return {
    id: 1,
    kind: 'pickup',
    door: 4,
    expect: 'empty',
    active: true,
    since: '2026-01-01T10:00:00.000Z',
    ...extra,
    ...phase,
  };
}

describe('the kiosk view', () => {
  it('a door is open while the core still drives or watches it', () => {
    expect(doorIsOpen(state({}))).toBe(false);
    expect(doorIsOpen(state({ session: session({ phase: 'open' }) }))).toBe(true);
    expect(
      doorIsOpen(
        state({
          session: session(
            { phase: 'reported', itemPresent: false, asExpected: true },
            { active: false },
          ),
        }),
      ),
    ).toBe(false);
  });

  it('out of service for the conditions nobody can be served in, not when degraded', () => {
    const reasons = (
      [
        'ok',
        'degraded',
        'service_unreachable',
        'terminal_refused',
        'controller_unreachable',
      ] as ServiceCondition[]
    ).map((condition) => outOfService(state({ condition })));
    expect(reasons).toEqual([
      null,
      null,
      'service_unreachable',
      'terminal_refused',
      'controller_unreachable',
    ]);
  });

  it('the cabinet’s columns come from its layout; none before it is known', () => {
    expect(cabinetColumns(state({}))).toBeNull();
    expect(cabinetColumns(state({ layout: { columns: [[1, 2], [3]] } }))).toEqual([[1, 2], [3]]);
    expect(defaultColumns([10, 2, 1, 3, 4, 5, 6, 7, 8, 9])).toEqual([
      [1, 2, 3, 4, 5, 6, 7, 8],
      [9, 10],
    ]);
  });
});

describe('the door step on screen', () => {
  it('follows the session’s phase for this door; another door’s session shows opening', () => {
    const steps = (
      [
        [{ phase: 'unlocking' }, 'opening'],
        [{ phase: 'unknown' }, 'opening'],
        [{ phase: 'open' }, 'open'],
        [{ phase: 'left_open' }, 'left_open'],
        [{ phase: 'did_not_open' }, 'did_not_open'],
        [{ phase: 'closed', itemPresent: false, asExpected: true }, 'closed_ok'],
        [{ phase: 'reported', itemPresent: true, asExpected: false }, 'closed_amiss'],
        [{ phase: 'take_out_and_close' }, 'take_out'],
        [{ phase: 'closed_with_item_choice' }, 'choice'],
        [{ phase: 'cancelled' }, 'cancelled'],
      ] as [DoorPhase, string][]
    ).map(([phase]) => doorStep(session(phase), 4));
    expect(steps).toEqual([
      'opening',
      'opening',
      'open',
      'left_open',
      'did_not_open',
      'closed_ok',
      'closed_amiss',
      'take_out',
      'choice',
      'cancelled',
    ]);
    expect(doorStep(session({ phase: 'open' }), 5)).toBe('opening');
    expect(doorStep(null, 4)).toBe('opening');
  });

  it('ignores the session that was on screen before this person asked, until it moves on', () => {
    const before = session(
      { phase: 'reported', itemPresent: false, asExpected: true },
      {
        since: '2026-01-01T10:00:00.000Z',
      },
    );
    const stale = staleOf(before);
    expect(stale).toEqual({ id: 1, since: '2026-01-01T10:00:00.000Z' });
    expect(doorStep(before, 4, stale)).toBe('opening');
    // The same id at a later phase time is this person's door.
    const later = session({ phase: 'open' }, { since: '2026-01-01T10:00:05.000Z' });
    expect(doorStep(later, 4, stale)).toBe('open');
    expect(staleOf(null)).toBeUndefined();
  });
});

describe('small readings the screens share', () => {
  it('groups typed characters, the last size repeating', () => {
    expect(group('12345678', [4, 4])).toEqual(['1234', '5678']);
    expect(group('123456', [4, 4])).toEqual(['1234', '56']);
    expect(group('ABCDEFGHIJ', [4])).toEqual(['ABCD', 'EFGH', 'IJ']);
    expect(group('', [4])).toEqual([]);
  });

  it('tells a refusal from a door that opened', () => {
    expect(isRefusal({ kind: 'invalid_code' })).toBe(true);
    expect(isRefusal({ kind: 'door_failed', door: 2 })).toBe(true);
    expect(isRefusal({ kind: 'door_open', door: 2 })).toBe(false);
    expect(isRefusal({ kind: 'door_unknown', door: 2 })).toBe(false);
    expect(isRefusal(null)).toBe(false);
  });
});
