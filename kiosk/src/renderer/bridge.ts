import type { KioskApi, KioskMethod, KioskState } from '../bridge/api';

declare global {
  interface Window {
    /** Set by Electron's preload; absent in the browser host. */
    kiosk?: KioskApi & { subscribe(listener: (state: KioskState) => void): () => void };
  }
}

/** One bridge call over loopback HTTP, typed by the method it calls. */
async function call<M extends KioskMethod>(
  method: M,
  ...args: Parameters<KioskApi[M]>
): Promise<Awaited<ReturnType<KioskApi[M]>>> {
  const response = await fetch(`/bridge/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  if (!response.ok) throw new Error(`bridge ${method} answered ${response.status}`);
  return (await response.json()) as Awaited<ReturnType<KioskApi[M]>>;
}

/** The browser host's bridge: the same KioskApi over loopback HTTP. */
export const httpBridge = {
  getState: () => call('getState'),
  pickup: (code) => call('pickup', code),
  verifyCourier: (no) => call('verifyCourier', no),
  deposit: (no, tracking) => call('deposit', no, tracking),
  checkSharedDoor: (no, tracking, door) => call('checkSharedDoor', no, tracking, door),
  depositShared: (no, tracking, door) => call('depositShared', no, tracking, door),
  depositAlternatives: (no, tracking) => call('depositAlternatives', no, tracking),
  rerouteDeposit: (no, tracking, station) => call('rerouteDeposit', no, tracking, station),
  startReturn: (tracking) => call('startReturn', tracking),
  cancelReturn: () => call('cancelReturn'),
  finishReturn: () => call('finishReturn'),
  reopenReturn: () => call('reopenReturn'),
  collectReturns: (no) => call('collectReturns', no),
  stopCollecting: () => call('stopCollecting'),
  reportDoorProblem: (problem) => call('reportDoorProblem', problem),
  readSensors: () => call('readSensors'),
  technicianLogin: (pin) => call('technicianLogin', pin),
  enrol: (pin, code) => call('enrol', pin, code),
} satisfies KioskApi;

export const kiosk: KioskApi =
  typeof window !== 'undefined' && window.kiosk ? window.kiosk : httpBridge;

export function subscribe(listener: (state: KioskState) => void): () => void {
  if (window.kiosk) return window.kiosk.subscribe(listener);
  const events = new EventSource('/bridge/events');
  events.onmessage = (event: MessageEvent<string>) =>
    listener(JSON.parse(event.data) as KioskState);
  return () => events.close();
}
