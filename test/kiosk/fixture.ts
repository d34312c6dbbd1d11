import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import {
  KioskCore,
  RENDERER_DIR,
  loadKioskConfig,
  startBrowserHost,
  writeKioskConfig,
  type BrowserHost,
} from '@locker/kiosk';
import { startTestServer, type TestStack } from '@locker/server/testing';
import { admin } from '@locker/server';
import { launchBrowser } from '../browser';

export { launchBrowser };

export interface KioskScene {
  stack: TestStack;
  scene: Omit<Awaited<ReturnType<TestStack['scene']>>, 'courier'> & {
    courier: { number: string; name: string };
  };
  core: KioskCore;
  host: BrowserHost;
  configFile: string;
  /** The simulated cabinet behind the kiosk: tests close doors and put items in. */
  cabinet: NonNullable<KioskCore['hardware']['simulator']>['cabinet'];
  stop(): Promise<void>;
}

/** A kiosk configuration for the test server, on the simulator unless `extra` says otherwise. */
export function writeTestKioskConfig(serverUrl: string, token: string, extra: object = {}): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'kiosk-')), 'kiosk.json');
  writeKioskConfig(file, {
    serverUrl,
    deviceToken: token,
    lock: { kind: 'simulator', boards: 1 },
    dataDir: './data',
    heartbeatIntervalSeconds: 1,
    cabinetPollSeconds: 1,
    doorCloseTimeoutSeconds: 30,
    ...extra,
  });
  return file;
}

/** Server and PostgreSQL, a station with its terminal, and a courier with a typeable number. */
export async function kioskStation(doors = '1:S,2:S,3:M,4:L', stationExtra = {}) {
  const stack = await startTestServer();
  const base = await stack.scene(doors, { supportPhone: '+383 38 555 000', ...stationExtra });
  // Couriers type their staff number on the keypad: digits.
  const courier = await admin.createCourier(
    stack.sql,
    String(10_000 + Math.floor(Math.random() * 89_999)),
    'Arben Krasniqi',
  );
  return { stack, scene: { ...base, courier } };
}

/** The whole stack: server and PostgreSQL, a station whose kiosk runs on the simulator. */
export async function kioskScene(
  doors = '1:S,2:S,3:M,4:L',
  stationExtra = {},
  kioskExtra = {},
  /** What is done at the station before its kiosk starts (a parcel already in a door). */
  beforeStart?: (station: Awaited<ReturnType<typeof kioskStation>>) => Promise<void>,
): Promise<KioskScene> {
  const { stack, scene } = await kioskStation(doors, stationExtra);
  await beforeStart?.({ stack, scene });
  const configFile = writeTestKioskConfig(stack.url, scene.terminal.token, kioskExtra);
  // Logs go to the rotating file under the kiosk's data directory only.
  const core = await KioskCore.start(loadKioskConfig(configFile), { stdout: false });
  const host = await startBrowserHost(core, RENDERER_DIR);
  return {
    stack,
    scene,
    core,
    host,
    configFile,
    cabinet: core.hardware.simulator!.cabinet,
    stop: async () => {
      await host.close();
      await core.stop();
      await stack.close();
    },
  };
}

/** Presses keypad keys one by one, as a finger would. */
export async function typeOnKeypad(page: Page, digits: string): Promise<void> {
  for (const digit of digits)
    await page.locator('.keypad-keys').getByRole('button', { name: digit, exact: true }).click();
}
