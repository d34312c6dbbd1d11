import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, type RunningServer } from '@locker/server';
import { waitFor } from '@locker/server/testing';
import { kioskScene, launchBrowser, typeOnKeypad, type KioskScene } from './fixture';
import { queuedReports, restart } from './restart';
import { checkScreen } from './screenChecks';

const SHOTS = path.join(REPO_ROOT, 'test-results/screens');
const PORTRAIT = { width: 1080, height: 1920 };

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

async function doorState(k: KioskScene, position: number, sql = k.stack.sql) {
  const [door] = await sql<{ out_of_service: boolean }[]>`
    select d.out_of_service from doors d
     where d.station_id = ${k.scene.station.id} and d.position = ${position}`;
  const alerts = await sql<{ message: string }[]>`
    select message from alerts where kind = 'door_fault' and station_id = ${k.scene.station.id}`;
  return { outOfService: door!.out_of_service, alerts: alerts.map((a) => a.message) };
}

/** A customer picks up on screen; the door is left open (the sensor reads it open). */
async function pickUp(k: KioskScene, page: Page, language = 'en') {
  const { code, door } = await k.scene.deposit();
  await page.goto(`${k.host.url}?lang=${language}`);
  await page.locator('[data-screen="home"]').waitFor();
  await page.locator('.home-actions button').nth(0).click();
  await typeOnKeypad(page, code);
  await page.locator('.key-primary').click();
  await page.locator('.door-open').waitFor();
  return door;
}

const openTopic = async (page: Page, topic: string, help = 'Help') => {
  await page.getByRole('button', { name: help, exact: true }).click();
  await page.getByRole('button', { name: topic }).click();
  await page.locator('[data-screen="help-topic"]').waitFor();
};

describe('help topics that report', () => {
  let k: KioskScene;
  beforeAll(async () => {
    k = await kioskScene('1:S,2:S,3:S');
  });
  afterAll(() => k.stop());

  it('"the door will not close" reports the door this person used: out of service, alerted, said so', async () => {
    const page = await browser.newPage({ viewport: PORTRAIT });
    try {
      const door = await pickUp(k, page);
      expect(await doorState(k, door)).toEqual({ outOfService: false, alerts: [] });
      await openTopic(page, 'The door will not close');
      await page.getByRole('button', { name: `Report door ${door}` }).click();
      await page.getByText(`Door ${door} has been reported and taken out of use.`).waitFor();
      await page.getByText('You can leave now.', { exact: false }).waitFor();
      expect(await page.getByRole('button', { name: `Report door ${door}` }).count()).toBe(0);
      await checkScreen(page, 'help-reported');
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'portrait-en-help-reported.png') });
      // It reached the service before the screen said so: nothing waits in the queue.
      expect(await doorState(k, door)).toEqual({
        outOfService: true,
        alerts: [`door ${door} will not close; taken out of service`],
      });
      expect(queuedReports(k.core.config.dataDir)).toEqual([]);
      k.cabinet.closeDoor(door, false);
      await expect.poll(async () => (await k.core.getState()).pendingReports).toBe(0);
    } finally {
      await page.close();
    }
  });

  it('"the door did not open" reports it too, in Albanian', async () => {
    const page = await browser.newPage({ viewport: PORTRAIT });
    try {
      const door = await pickUp(k, page, 'sq');
      await openTopic(page, 'Dera nuk u hap', 'Ndihmë');
      await page.getByRole('button', { name: `Raporto derën ${door}` }).click();
      await page.getByText(`Dera ${door} u raportua dhe u hoq nga përdorimi.`).waitFor();
      const state = await doorState(k, door);
      expect(state.outOfService).toBe(true);
      expect(state.alerts).toHaveLength(2);
      expect(state.alerts).toContain(`door ${door} did not open; taken out of service`);
      k.cabinet.closeDoor(door, false);
      await expect.poll(async () => (await k.core.getState()).pendingReports).toBe(0);
    } finally {
      await page.close();
    }
  });

  it('without a door this visit, and for a parcel not inside: advice only, nothing reported', async () => {
    const page = await browser.newPage({ viewport: PORTRAIT });
    try {
      await page.goto(`${k.host.url}?lang=en`);
      await page.locator('[data-screen="home"]').waitFor();
      await openTopic(page, 'The door did not open');
      await page.getByText('Push the door firmly', { exact: false }).waitFor();
      expect(await page.locator('.screen-actions .primary').count()).toBe(0);
      await page.getByRole('button', { name: 'Back' }).click();
      await page.getByRole('button', { name: 'My parcel is not inside' }).click();
      await page.getByText('call support with your code', { exact: false }).waitFor();
      expect(await page.locator('.screen-actions .primary').count()).toBe(0);
      // The last person's door is not this person's to report: only the two above exist.
      const alerts = await k.stack.sql`select 1 from alerts where kind = 'door_fault'`;
      expect(alerts.length).toBe(2);
    } finally {
      await page.close();
    }
  });
});

describe('a door reported while the service is down', () => {
  it('is queued on disk, said so, and replayed when the service is back', async () => {
    const k = await kioskScene('1:S,2:S');
    let revived: RunningServer | undefined;
    const page = await browser.newPage({ viewport: PORTRAIT });
    try {
      const door = await pickUp(k, page);
      await k.stack.server.close();
      await openTopic(page, 'The door will not close');
      await page.getByRole('button', { name: `Report door ${door}` }).click();
      await page
        .getByText(`Door ${door} is reported. The locker is offline`, { exact: false })
        .waitFor();
      expect(queuedReports(k.core.config.dataDir)).toEqual([
        expect.objectContaining({
          kind: 'door_fault',
          body: expect.objectContaining({ position: door, problem: 'will_not_close' }),
        }),
      ]);
      revived = await restart(k.stack.url, k.stack.databaseUrl);
      await waitFor(
        () => (queuedReports(k.core.config.dataDir).length === 0 ? true : undefined),
        20_000,
      );
      // The server was restarted: its own connection reads the database.
      expect(await doorState(k, door, revived.sql)).toEqual({
        outOfService: true,
        alerts: [`door ${door} will not close; taken out of service`],
      });
    } finally {
      await page.close();
      await k.host.close();
      await k.core.stop();
      await revived?.close();
    }
  });
});
