import type { KioskApi, KioskMethod, KioskState } from '../bridge/api';

declare global {
  interface Window {
    /** Set by Electron's preload; absent in the browser host. */
    kiosk?: KioskApi & { subscribe(listener: (state: KioskState) => void): () => void };
  }
}

async function call(method: KioskMethod, ...args: unknown[]): Promise<unknown> {
  const response = await fetch(`/bridge/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  if (!response.ok) throw new Error(`bridge ${method} answered ${response.status}`);
  return response.json();
}

/** The browser host's bridge: the same KioskApi over loopback HTTP. */
const httpBridge = {
  getState: () => call('getState'),
  pickup: (code) => call('pickup', code),
  verifyCourier: (no) => call('verifyCourier', no),
  deposit: (no, tracking) => call('deposit', no, tracking),
  startReturn: (tracking) => call('startReturn', tracking),
  cancelReturn: () => call('cancelReturn'),
  collectReturns: (no) => call('collectReturns', no),
  readSensors: () => call('readSensors'),
  technicianLogin: (pin) => call('technicianLogin', pin),
} as KioskApi;

export const kiosk: KioskApi = window.kiosk ?? httpBridge;

export function subscribe(listener: (state: KioskState) => void): () => void {
  if (window.kiosk) return window.kiosk.subscribe(listener);
  const events = new EventSource('/bridge/events');
  events.onmessage = (event: MessageEvent<string>) =>
    listener(JSON.parse(event.data) as KioskState);
  return () => events.close();
}
