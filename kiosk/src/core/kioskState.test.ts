import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { KioskStateStore } from './kioskState';

describe('the kiosk’s condition', () => {
  it('hurries the queued reports when it comes back into service, not when a board flaps', () => {
    let hurried = 0;
    const store = new KioskStateStore(pino({ level: 'silent' }), {
      backInService: () => hurried++,
    });
    store.setHealth({ doorCount: 32 });
    expect(store.state.condition).toBe('ok');
    // One board silent and back, twice: degraded and ok, in service all along.
    for (let i = 0; i < 2; i++) {
      store.setHealth({ unknownDoors: [17, 18] });
      expect(store.state.condition).toBe('degraded');
      store.setHealth({ unknownDoors: [] });
      expect(store.state.condition).toBe('ok');
    }
    expect(hurried).toBe(0);
    // Out of service and back: once each time, to degraded or to ok.
    store.setHealth({ controllerReachable: false });
    expect(store.state.condition).toBe('controller_unreachable');
    store.setHealth({ controllerReachable: true, unknownDoors: [17] });
    expect(store.state.condition).toBe('degraded');
    expect(hurried).toBe(1);
    store.setHealth({ serviceReachable: false });
    store.setHealth({ serviceReachable: true, unknownDoors: [] });
    expect(store.state.condition).toBe('ok');
    expect(hurried).toBe(2);
  });
});
