import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  KioskCore,
  RENDERER_DIR,
  loadKioskConfig,
  startBrowserHost,
  texts,
  type BrowserHost,
} from '@locker/kiosk';
import { REPO_ROOT } from '@locker/server';
import { client, setStationPlace } from '@locker/server/testing';
import { extendingProxy } from './extendingProxy';
import {
  kioskScene,
  kioskStation,
  launchBrowser,
  typeOnKeypad,
  writeTestKioskConfig,
  type KioskScene,
} from './fixture';
import { ORIENTATIONS, checkScreen, type Orientation } from './screenChecks';

// Issue 27, overflow: the courier's parcel finds this locker full; the screen offers the
// nearest lockers with room, the courier taps one, the booking follows (real server and
// PostgreSQL, the kiosk on its simulated cabinet, in Chromium).

const SHOTS = path.join(REPO_ROOT, 'test-results/screens');

let browser: Browser;
let page: Page | undefined;
const cleanups: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchBrowser();
});
afterAll(() => browser.close());
afterEach(async () => {
  await page?.close();
  page = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** What `fullStation` needs of a kiosk's station (a kiosk scene, or one before its kiosk). */
type Station = Pick<KioskScene, 'stack' | 'scene'>;

/**
 * This kiosk's station in Prishtina with its one door taken, two lockers with room near
 * it (one with an address, one without) and one nearer that is full too; and a parcel
 * booked here that finds no door.
 */
async function fullStation({ stack, scene }: Station) {
  await setStationPlace(stack.sql, scene.station.code, {
    coordinates: '42.6629,21.1655',
    address: 'Rruga Agim Ramadani 15',
  });
  const dardania = await stack.station('1:S,2:M', { name: 'Dardania' });
  await setStationPlace(stack.sql, dardania.code, {
    coordinates: '42.6560,21.1560',
    address: 'Rruga Bill Clinton 12, 10000 Prishtinë',
  });
  const ulpiana = await stack.station('1:L', { name: 'Ulpiana' });
  await setStationPlace(stack.sql, ulpiana.code, { coordinates: '42.6470,21.1720' });
  const full = await stack.station('1:S', { name: 'Qendra' });
  await setStationPlace(stack.sql, full.code, { coordinates: '42.6635,21.1660' });
  await stack.sql`update doors set out_of_service = true where station_id = ${full.id}`;
  await scene.deposit();
  const api = client(stack.url, scene.org.apiKey);
  const booked = await api.post('/api/v1/shipments', {
    destination_station_id: scene.station.id,
    parcel_size: 'S',
    recipient_name: 'Drita Gashi',
    recipient_phone: `+38344${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`,
    recipient_language: 'sq',
  });
  expect(booked.status).toBe(201);
  return {
    api,
    dardania,
    ulpiana,
    parcel: booked.body as { id: string; tracking_number: string; recipient_phone: string },
  };
}

async function openPage(url: string, lang: string, orientation: Orientation = 'portrait') {
  page = await browser.newPage({ viewport: ORIENTATIONS[orientation] });
  await page.goto(`${url}?lang=${lang}`);
  await page.locator('[data-screen="home"]').waitFor();
  return page;
}

/** The courier signs in and scans the parcel the locker has no door for. */
async function scanOnScreen(page: Page, courierNo: string, tracking: string, lang: string) {
  const t = texts[lang as keyof typeof texts];
  await page.getByRole('button', { name: t.home.courier, exact: true }).click();
  await typeOnKeypad(page, courierNo);
  await page.locator('.key-primary').click();
  await page.locator('[data-screen="courier-ready"]').waitFor();
  await typeOnKeypad(page, tracking);
  await page.locator('.key-primary').click();
}

describe('a full locker sends the courier to the nearest with room', () => {
  for (const [lang, orientation] of [
    ['en', 'portrait'],
    ['sq', 'portrait'],
    ['tr', 'landscape'],
  ] as const) {
    it(`offers the nearest lockers with room and re-routes the parcel (${lang}, ${orientation})`, async () => {
      const t = texts[lang];
      const k: KioskScene = await kioskScene('1:S');
      cleanups.push(() => k.stop());
      const { api, dardania, parcel } = await fullStation(k);
      const page = await openPage(k.host.url, lang, orientation);
      await scanOnScreen(page, k.scene.courier.number, parcel.tracking_number, lang);

      // Nearest first; the full one nearer still is not offered.
      const choices = page.locator('.overflow-station');
      await choices.first().waitFor();
      await expect.poll(() => choices.count()).toBe(2);
      expect(await page.locator('.overflow-name').allTextContents()).toEqual([
        'Dardania',
        'Ulpiana',
      ]);
      await page.getByText('Rruga Bill Clinton 12, 10000 Prishtinë').waitFor();
      await page.getByText(t.overflow.choose).waitFor();
      await checkScreen(page, `courier-overflow ${lang} ${orientation}`);
      await page.screenshot({
        path: path.join(SHOTS, `${orientation}-${lang}-courier-overflow.png`),
      });

      await choices.first().click();
      await page.locator('[data-screen="courier-overflow-done"]').waitFor();
      await page
        .getByRole('heading', { name: t.overflow.goTo.replace('{{name}}', 'Dardania') })
        .waitFor();
      await page.getByText(t.overflow.notified).waitFor();
      await checkScreen(page, `courier-overflow-done ${lang} ${orientation}`);
      await page.screenshot({
        path: path.join(SHOTS, `${orientation}-${lang}-courier-overflow-done.png`),
      });

      // The booking followed: the merchant sees the new station, tracking both.
      const shipment = (await api.get(`/api/v1/shipments/${parcel.id}`)).body;
      expect(shipment.destination_station_code).toBe(dardania.code);
      expect(shipment.reservation.status).toBe('held');
      const tracking = (await api.get(`/api/v1/track/${parcel.tracking_number}`)).body;
      expect(tracking.events.at(-1)).toMatchObject({
        station_code: dardania.code,
        rerouted_from_station_code: k.scene.station.code,
      });

      // Next parcel: back to scanning, nothing typed.
      await page.locator('.screen-actions .primary').click();
      await page.locator('[data-screen="courier-ready"]').waitFor();
    });
  }

  it('says it cannot re-route now when the service does not give a usable answer', async () => {
    const station = await kioskStation('1:S');
    cleanups.push(() => station.stack.close());
    const { parcel } = await fullStation(station);
    const proxy = await extendingProxy(station.stack.url);
    cleanups.push(() => proxy.close());
    const core = await KioskCore.start(
      loadKioskConfig(writeTestKioskConfig(proxy.url, station.scene.terminal.token)),
      { stdout: false },
    );
    cleanups.push(() => core.stop());
    const host: BrowserHost = await startBrowserHost(core, RENDERER_DIR);
    cleanups.push(() => host.close());
    const page = await openPage(host.url, 'en');
    proxy.breakNext('/terminal/v1/deposit/alternatives');
    await scanOnScreen(page, station.scene.courier.number, parcel.tracking_number, 'en');
    await page.getByText(texts.en.overflow.unavailable).waitFor();
    expect(await page.locator('.overflow-station').count()).toBe(0);
    // Keep the parcel: back to scanning.
    await page.getByRole('button', { name: texts.en.overflow.keep }).click();
    await page.locator('[data-screen="courier-ready"]').waitFor();
  });
});
