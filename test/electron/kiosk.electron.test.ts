// The Electron shell, end to end: `pnpm test:electron` on a machine where Electron's
// binary is installed (README, "Electron"). The browser-host journeys cover the kiosk's
// behaviour; these cover what only Electron adds: the window's isolation, the preload
// bridge over IPC, and the policy on a renderer loaded from a file.
import { createRequire } from 'node:module';
import path from 'node:path';
import { ipcMainInvokeHandler } from 'electron-playwright-helpers';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KIOSK_METHODS } from '../../kiosk/src/bridge/api';
import { RENDERER_DIR } from '../../kiosk/src/hosts/browser';
import { SimulatedCabinet, serveTcp, type TcpSimulator } from '../../lock-driver/src/index';
import { client, waitFor } from '../../server/test/harness';
import { buildRenderer, kioskStation, typeOnKeypad, writeTestKioskConfig } from '../kiosk/fixture';

const KIOSK_DIR = path.resolve(RENDERER_DIR, '../..');

/** Where the installed Electron binary is; a clear failure where it is not. */
function electronBinary(): string {
  try {
    return createRequire(path.join(KIOSK_DIR, 'package.json'))('electron') as string;
  } catch (error) {
    throw new Error(
      `Electron's binary is not installed (${(error as Error).message}). ` +
        'Install it first: `node kiosk/node_modules/electron/install.js` (README, "Electron").',
    );
  }
}

let station: Awaited<ReturnType<typeof kioskStation>>;
let cabinet: SimulatedCabinet;
let gateway: TcpSimulator;
let app: ElectronApplication;
let page: Page;

beforeAll(async () => {
  const executablePath = electronBinary();
  await buildRenderer(); // the renderer and the bundled main and preload
  station = await kioskStation('1:S,2:S');
  // The cabinet sits behind a TCP gateway in this process, so the test can close doors
  // while the kiosk core runs inside Electron's main process.
  cabinet = new SimulatedCabinet({ boards: 1 });
  gateway = await serveTcp(cabinet);
  const configFile = writeTestKioskConfig(station.stack.url, station.scene.terminal.token, {
    lock: { kind: 'tcp', host: '127.0.0.1', port: gateway.port, boards: 1 },
  });
  app = await _electron.launch({
    executablePath,
    args: [KIOSK_DIR, ...(process.env.CI ? ['--no-sandbox'] : [])],
    env: { ...process.env, KIOSK_CONFIG: configFile },
  });
  page = await app.firstWindow();
  await page.locator('.home-actions').waitFor();
});

afterAll(async () => {
  await app?.close();
  await gateway?.close();
  await station?.stack.close();
});

describe('the Electron shell', () => {
  it('isolates the renderer: no Node, no Electron, only the typed bridge', async () => {
    const renderer = await page.evaluate(() => {
      const world = globalThis as Record<string, unknown>;
      return {
        require: typeof world.require,
        process: typeof world.process,
        ipcRenderer: typeof world.ipcRenderer,
        bridge: Object.keys(world.kiosk as object).sort(),
      };
    });
    expect(renderer).toEqual({
      require: 'undefined',
      process: 'undefined',
      ipcRenderer: 'undefined',
      bridge: [...KIOSK_METHODS, 'subscribe'].sort(),
    });
  });

  it('enforces the content security policy on the renderer loaded from a file', async () => {
    // Playwright's own evaluate is exempt from the policy; a script the page runs is not.
    const evalOutcome = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'document.body.dataset.inline = "ran"';
      document.body.append(script);
      return document.body.dataset.inline ?? 'refused';
    });
    expect(evalOutcome).toBe('refused');
  });

  it('answers the bridge over IPC with the core state, and nothing beyond it', async () => {
    const state = (await ipcMainInvokeHandler(app, 'kiosk:getState')) as {
      condition: string;
      config: { support_phone: string } | null;
    };
    expect(state.config?.support_phone).toBe('+383 38 555 000');
    await expect(ipcMainInvokeHandler(app, 'kiosk:openDoor', 1)).rejects.toThrow();
  });

  it('a customer picks up a parcel in the Electron window', async () => {
    const { shipment, door, code } = await station.scene.deposit();
    cabinet.setItem(door, true);
    cabinet.closeAfterOpen(door, 500, false);
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('button', { name: 'Pick up a parcel' }).click();
    await typeOnKeypad(page, code);
    await page.getByRole('button', { name: 'OK' }).click();
    await page.getByRole('heading', { name: `Door ${door} is open` }).waitFor();
    await page.getByText('Thank you! Enjoy your parcel.').waitFor();
    const api = client(station.stack.url, station.scene.org.apiKey);
    await waitFor(async () =>
      (await api.get(`/api/v1/shipments/${shipment.id}`)).body.status === 'collected'
        ? true
        : undefined,
    );
  });
});
