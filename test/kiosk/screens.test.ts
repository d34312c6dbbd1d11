import axe from 'axe-core';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@locker/server';
import { kioskScene, launchBrowser, typeOnKeypad, type KioskScene } from './fixture';

const SHOTS = path.join(REPO_ROOT, 'test-results/screens');
const LANGUAGES = ['sq', 'sr', 'tr', 'en'] as const;

let browser: Browser;
let k: KioskScene;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchBrowser();
  k = await kioskScene('1:S,2:S,3:S,4:S,5:M,6:M,7:L,8:XL');
});
afterAll(async () => {
  await k.stop();
  await browser.close();
});

/** WCAG 2 A and AA (contrast and names included) by axe-core, and 48 px touch targets. */
async function checkAccessibility(page: Page, screen: string) {
  // The kiosk's CSP refuses inline scripts (rightly); evaluating through the DevTools
  // protocol runs the checker without weakening it.
  await page.evaluate(axe.source);
  const result = await page.evaluate(() =>
    (window as unknown as { axe: typeof axe }).axe.run(document, {
      runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa'],
    }),
  );
  expect(
    result.violations.map(
      (v) => `${screen}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    ),
  ).toEqual([]);
  const small = await page.evaluate(() =>
    [...document.querySelectorAll('button')]
      .map((b) => ({ text: b.textContent, box: b.getBoundingClientRect() }))
      .filter(({ box }) => box.width > 0 && (box.width < 48 || box.height < 48))
      .map(({ text }) => text),
  );
  expect(small, `${screen}: touch targets under 48 px`).toEqual([]);
}

async function shoot(page: Page, language: string, screen: string) {
  await checkAccessibility(page, `${language}/${screen}`);
  await page.screenshot({ path: path.join(SHOTS, `${language}-${screen}.png`) });
}

describe('every screen in every language', () => {
  it.each(LANGUAGES)(
    '%s: renders each screen accessibly and saves a screenshot',
    async (language) => {
      const page = await browser.newPage({ viewport: { width: 1080, height: 1600 } });
      try {
        await page.goto(`${k.host.url}?lang=${language}`);
        await page.locator('.bottom').getByText('+383 38 555 000').waitFor();
        await shoot(page, language, 'home');

        await page.locator('.home-actions button').nth(0).click();
        await typeOnKeypad(page, '99999999');
        await page.locator('.key-primary').click();
        await page.getByRole('alert').waitFor();
        await shoot(page, language, 'pickup-wrong-code');

        const { code, door } = await k.scene.deposit();
        await typeOnKeypad(page, code);
        await page.locator('.key-primary').click();
        await page.locator('.door-open-title').waitFor();
        await shoot(page, language, 'pickup-door-open');
        k.cabinet.closeDoor(door, false);
        await page.locator('.door-progress .instruction').filter({ hasNotText: /^$/ }).waitFor();
        await page
          .locator('.secondary, .primary')
          .first()
          .waitFor({ state: 'detached' })
          .catch(() => undefined);

        await page.goto(`${k.host.url}?lang=${language}`);
        await page.locator('.home-actions button').nth(2).click();
        await typeOnKeypad(page, k.scene.courier.number);
        await page.locator('.key-primary').click();
        await page.getByRole('heading', { name: /Arben Krasniqi/ }).waitFor();
        await shoot(page, language, 'courier-ready');
        const parcel = await k.stack.shipment(k.scene.org.id, k.scene.station.id);
        await typeOnKeypad(page, parcel.tracking_number);
        await page.locator('.key-primary').click();
        await page.locator('.door-open-title').waitFor();
        const [held] = await k.stack.sql<{ slot_no: number }[]>`
          select slot_no from shipments where id = ${parcel.id}`;
        k.cabinet.closeDoor(held!.slot_no, false);
        await page.locator('.door-title-amiss').waitFor(); // "door N is closed", not "done"
        await shoot(page, language, 'courier-shut-empty');

        await page.goto(`${k.host.url}?lang=${language}`);
        await page.locator('.home-actions button').nth(1).click();
        await shoot(page, language, 'return-entry');

        await page.goto(`${k.host.url}?lang=${language}#maintenance`);
        await page.locator('.door-grid').waitFor();
        await shoot(page, language, 'maintenance');
      } finally {
        await page.close();
      }
    },
  );
});
