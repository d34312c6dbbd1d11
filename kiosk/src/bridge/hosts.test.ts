import { EventEmitter } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBrowserHost, type BrowserHost } from '../hosts/browserHost';
import { INITIAL_STATE, KIOSK_METHODS, type KioskApi, type KioskMethod } from './api';

// Arguments each method takes, as the screen would send them.
const ARGS: Record<KioskMethod, (string | number)[]> = {
  getState: [],
  pickup: ['12345678'],
  verifyCourier: ['4711'],
  deposit: ['4711', 'TRK1'],
  checkSharedDoor: ['4711', 'TRK3', 2],
  depositShared: ['4711', 'TRK3', 2],
  depositAlternatives: ['4711', 'TRK1'],
  rerouteDeposit: ['4711', 'TRK1', 'PR02'],
  startReturn: ['TRK2'],
  cancelReturn: [],
  finishReturn: [],
  reopenReturn: [],
  collectReturns: ['4711'],
  stopCollecting: [],
  reportDoorProblem: ['will_not_close'],
  readSensors: [],
  technicianLogin: ['482913'],
  enrol: ['482913', '4821-0937-55'],
};

/** A core that records which method was called with what, and answers its name. */
function recordingCore() {
  const calls: { method: string; args: unknown[] }[] = [];
  const core = new EventEmitter() as EventEmitter & Record<string, unknown>;
  for (const method of KIOSK_METHODS) {
    core[method] = (...args: unknown[]) => {
      calls.push({ method, args });
      return Promise.resolve(method === 'getState' ? INITIAL_STATE : { kind: method });
    };
  }
  return { core: core as unknown as KioskApi & EventEmitter, calls };
}

const electron = vi.hoisted(() => {
  const exposed: Record<string, unknown> = {};
  const invoked: { channel: string; args: unknown[] }[] = [];
  return { exposed, invoked };
});
vi.mock('electron', () => ({
  contextBridge: {
    exposeInMainWorld: (name: string, api: unknown) => (electron.exposed[name] = api),
  },
  ipcRenderer: {
    invoke: (channel: string, ...args: unknown[]) => {
      electron.invoked.push({ channel, args });
      return Promise.resolve(null);
    },
    on: () => undefined,
    off: () => undefined,
  },
}));

describe('the bridge on both hosts', () => {
  let host: BrowserHost;
  const recorded = recordingCore();
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'renderer-'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html>');
    host = await startBrowserHost(recorded.core, dir);
  });
  afterAll(() => host.close());

  it('the browser bridge reaches every core method through the browser host', async () => {
    // The renderer's fetch of /bridge/<method>, sent to the real host on loopback.
    const realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', (url: string, init: RequestInit) =>
      realFetch(new URL(url, host.url), init),
    );
    const { httpBridge } = await import('../renderer/bridge');
    expect(Object.keys(httpBridge).sort()).toEqual([...KIOSK_METHODS].sort());
    for (const method of KIOSK_METHODS) {
      const call = httpBridge[method] as (...args: (string | number)[]) => Promise<unknown>;
      const answer = await call(...ARGS[method]);
      expect(answer).toEqual(method === 'getState' ? INITIAL_STATE : { kind: method });
      expect(recorded.calls.at(-1)).toEqual({ method, args: ARGS[method] });
    }
    vi.unstubAllGlobals();
  });

  it('the Electron preload exposes every method, each over its own IPC channel', async () => {
    await import('../preload/preload');
    const bridge = electron.exposed.kiosk as Record<
      string,
      (...args: (string | number)[]) => unknown
    >;
    expect(Object.keys(bridge).sort()).toEqual([...KIOSK_METHODS, 'subscribe'].sort());
    for (const method of KIOSK_METHODS) {
      await bridge[method]!(...ARGS[method]);
      expect(electron.invoked.at(-1)).toEqual({ channel: `kiosk:${method}`, args: ARGS[method] });
    }
  });
});
