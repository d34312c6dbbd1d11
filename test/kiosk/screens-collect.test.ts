import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { texts } from '@locker/kiosk';
import { REPO_ROOT } from '@locker/server';
import { client, waitFor } from '@locker/server/testing';
import { kioskScene, launchBrowser, typeOnKeypad, type KioskScene } from './fixture';
import {
  LANGUAGES,
  ORIENTATIONS,
  checkDone,
  checkDoorNumber,
  checkScreen,
  type Orientation,
} from './screenChecks';

const SHOTS = path.join(REPO_ROOT, 'test-results/screens');

let browser: Browser;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchBrowser();
});
afterAll(() => browser.close());

const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => String(values[key]));
const grouped = (tracking: string) => tracking.match(/.{1,4}/g)!.join(' ');

/** Three parcels past the station's maximum storage time, each in its door (the simulator). */
async function expiredParcels(k: KioskScene) {
  const parcels = [];
  for (let i = 0; i < 3; i++) parcels.push(await k.scene.deposit());
  for (const p of parcels) {
    await k.stack.sql`
      update shipments set deposited_at = now() - interval '8 days' where id = ${p.shipment.id}`;
    k.cabinet.setItem(p.door, true);
  }
  return parcels.sort((a, b) => a.door - b.door);
}

const status = async (k: KioskScene, id: string) =>
  (await client(k.stack.url, k.scene.org.apiKey).get(`/api/v1/shipments/${id}`)).body
    .status as string;

describe.each(Object.keys(ORIENTATIONS) as Orientation[])('courier take-out, %s', (orientation) => {
  it.each(LANGUAGES)(
    '%s: tracking number and "1 of N" per door, stop leaves the rest with their count',
    async (language) => {
      const t = texts[language];
      const k = await kioskScene('1:S,2:S,3:S,4:S');
      const page: Page = await browser.newPage({ viewport: ORIENTATIONS[orientation] });
      const shot = `${orientation}-${language}-collect`;
      try {
        const parcels = await expiredParcels(k);
        await page.goto(`${k.host.url}?lang=${language}`);
        await page.locator('[data-screen="home"]').waitFor();
        await page.getByRole('button', { name: t.home.courier }).click();
        await typeOnKeypad(page, k.scene.courier.number);
        await page.locator('.key-primary').click();
        await page.locator('[data-screen="courier-ready"]').waitFor();
        // At sign-in: the courier by first name only, and what waits to be taken out.
        await page
          .getByRole('heading', { name: fill(t.courier.hello, { name: 'Arben' }), exact: true })
          .waitFor();
        expect(await page.getByText('Krasniqi').count()).toBe(0);
        await page.getByText(fill(t.courier.toTakeOut, { count: 3 }), { exact: true }).waitFor();
        await checkScreen(page, `${shot}-courier-ready`);
        await page.screenshot({ path: path.join(SHOTS, `${shot}-courier-ready.png`) });
        await page.getByRole('button', { name: t.courier.collect }).click();

        // Door after door: its parcel's tracking number, "n of 3", the door huge on the map.
        for (const [i, parcel] of parcels.slice(0, 2).entries()) {
          await page.locator(`.door-open .door-number-value:text-is("${parcel.door}")`).waitFor();
          await page
            .getByText(fill(t.courier.progress, { index: i + 1, count: 3 }), { exact: true })
            .waitFor();
          await page
            .getByText(
              fill(t.courier.tracking, { number: grouped(parcel.shipment.tracking_number) }),
            )
            .waitFor();
          if (i === 0) {
            await checkScreen(page, `${shot}-door`);
            await checkDoorNumber(page, `${shot}-door`);
            await page.screenshot({ path: path.join(SHOTS, `${shot}-door.png`) });
            k.cabinet.closeDoor(parcel.door, false);
          } else {
            // Stop while the second door is open: it is finished, no other door opens.
            await page.getByRole('button', { name: t.courier.stop }).click();
            await page.getByText(t.courier.collectStopping).waitFor();
            expect(await page.getByRole('button', { name: t.courier.stop }).count()).toBe(0);
            await checkScreen(page, `${shot}-stopping`);
            k.cabinet.closeDoor(parcel.door, false);
          }
        }
        await page.getByText(fill(t.courier.collectStopped, { count: 1 })).waitFor();
        await page.locator('.countdown').waitFor();
        await checkScreen(page, `${shot}-stopped`);
        await checkDone(page, `${shot}-stopped`);
        await page.screenshot({ path: path.join(SHOTS, `${shot}-stopped.png`) });

        // The two taken reached the service through the queue; the third stays, shut.
        const [first, second, third] = parcels;
        for (const p of [first!, second!])
          await waitFor(async () =>
            (await status(k, p.shipment.id)) === 'return_collected' ? true : undefined,
          );
        expect(await status(k, third!.shipment.id)).not.toBe('return_collected');
        expect(k.cabinet.door(third!.door)).toEqual({ closed: true, itemPresent: true });
        expect((await k.core.getState()).collection).toMatchObject({
          total: 3,
          taken: 2,
          status: 'ended',
          ended: 'stopped',
        });
        // "Done" in words nobody misreads (Albanian: not "Gati", which also means "ready").
        expect(t.done).not.toBe('Gati');
        await page.getByRole('button', { name: t.done }).click();
        await page.locator('[data-screen="home"]').waitFor();
      } finally {
        await page.close();
        await k.stop();
      }
    },
    120_000,
  );
});
