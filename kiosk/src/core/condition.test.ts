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
});
