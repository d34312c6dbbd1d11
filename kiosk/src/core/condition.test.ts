import { describe, expect, it } from 'vitest';
import { HEALTHY, conditionOf } from './condition';

describe('service condition', () => {
  it('names the most serious cause that holds, and ok when none does', () => {
    expect(conditionOf(HEALTHY)).toBe('ok');
    expect(conditionOf({ ...HEALTHY, unknownDoors: [17] })).toBe('degraded');
    expect(conditionOf({ ...HEALTHY, controllerReachable: false, unknownDoors: [1] })).toBe(
      'controller_unreachable',
    );
    expect(conditionOf({ ...HEALTHY, serviceReachable: false, controllerReachable: false })).toBe(
      'service_unreachable',
    );
    // A refused terminal stays refused while the network is also down: only an operator clears it.
    expect(conditionOf({ ...HEALTHY, refused: true, serviceReachable: false })).toBe(
      'terminal_refused',
    );
  });

  it('a suspect polarity on some boards degrades; on every door, nothing can be opened', () => {
    const cabinet = { ...HEALTHY, doorCount: 32 };
    const board0 = Array.from({ length: 16 }, (_, i) => i + 1);
    expect(conditionOf({ ...cabinet, suspectDoors: board0 })).toBe('degraded');
    const all = Array.from({ length: 32 }, (_, i) => i + 1);
    expect(conditionOf({ ...cabinet, suspectDoors: all })).toBe('doors_untrusted');
    expect(conditionOf({ ...cabinet, suspectDoors: all, serviceReachable: false })).toBe(
      'service_unreachable',
    );
  });
});
