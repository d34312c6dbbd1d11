import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashTechnicianPin, texts } from '@locker/kiosk';
import { REPO_ROOT } from '@locker/server';
import { kioskScene, launchBrowser, typeOnKeypad, type KioskScene } from './fixture';
import {
  LANGUAGES,
  ORIENTATIONS,
  checkControls,
  checkDone,
  checkDoorNumber,
  checkScreen,
  type Orientation,
} from './screenChecks';

const SHOTS = path.join(REPO_ROOT, 'test-results/screens');
const PIN = '482913';

let browser: Browser;
let k: KioskScene;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchBrowser();
  k = await kioskScene(
    '1:S,2:S,3:S,4:S,5:M,6:M,7:L,8:XL,9:S,10:S,11:M,12:L',
    {},
    { technicianPinHash: hashTechnicianPin(PIN) },
  );
});
afterAll(async () => {
  await k.stop();
  await browser.close();
});
// Each run tries one wrong code per language and orientation: measuring screens, not the limit.
beforeEach(() => k.stack.sql`delete from rate_limit_windows`.then(() => undefined));

const screenIs = (page: Page, name: string) =>
  page.locator(`[data-screen="${name}"]`).waitFor({ timeout: 15_000 });

async function see(page: Page, shot: string, name: string): Promise<void> {
  await checkScreen(page, shot);
  await page.screenshot({ path: path.join(SHOTS, `${shot}.png`) });
  expect(await page.locator(`[data-screen="${name}"]`).isVisible(), shot).toBe(true);
}

const options = (page: Page) => page.locator('.screen-options:visible');

describe.each(Object.keys(ORIENTATIONS) as Orientation[])('%s screen', (orientation) => {
  it.each(LANGUAGES)(
    '%s: each screen passes axe, sizes, text and reach checks',
    async (language) => {
      const page = await browser.newPage({ viewport: ORIENTATIONS[orientation] });
      const shot = (screen: string) => `${orientation}-${language}-${screen}`;
      try {
        await page.goto(`${k.host.url}?lang=${language}`);
        await screenIs(page, 'home');
        await page.locator('.support').waitFor();
        await see(page, shot('home'), 'home');

        // The options: low layout keeps every control in the lower half; high contrast at 7:1.
        await options(page).locator('.option-low').click();
        await checkControls(page, shot('home-low'));
        await options(page).locator('.option-contrast').click();
        await see(page, shot('home-low-contrast'), 'home');
        await options(page).locator('.option-low').click();
        await options(page).locator('.option-contrast').click();

        await page.locator('.home-actions button').nth(0).click();
        await screenIs(page, 'pickup');
        const ok = page.locator('.key-primary');
        await typeOnKeypad(page, '9999999');
        expect(await ok.isDisabled(), 'OK before 8 digits').toBe(true);
        await typeOnKeypad(page, '9');
        expect(await ok.isDisabled(), 'OK at 8 digits').toBe(false);
        await ok.click();
        await page.locator('.message-error').waitFor();
        // The refused code stays, grouped 4-4, for a one-digit correction.
        expect(await page.locator('.keypad-group').allTextContents()).toEqual(['9999', '9999']);
        await see(page, shot('pickup-refused'), 'pickup');
        await options(page).locator('.option-large').click();
        await see(page, shot('pickup-large'), 'pickup');
        await options(page).locator('.option-low').click();
        await see(page, shot('pickup-large-low'), 'pickup');
        await options(page).locator('.option-low').click();
        await options(page).locator('.option-large').click();

        const { code, door } = await k.scene.deposit();
        for (let i = 0; i < 8; i++) await page.locator('.key-delete').click();
        await typeOnKeypad(page, code);
        await ok.click();
        await screenIs(page, 'pickup-door');
        await page.locator('.door-open').waitFor();
        await see(page, shot('pickup-door-open'), 'pickup-door');
        await checkDoorNumber(page, shot('pickup-door-open'));
        k.cabinet.closeDoor(door, false);
        await page.locator('.door-closed_ok').waitFor();
        await page.getByRole('heading', { name: texts[language].final.title }).waitFor();
        await page.getByRole('button', { name: texts[language].done }).waitFor();
        await page.locator('.countdown').waitFor();
        await see(page, shot('pickup-done'), 'pickup-door');
        await checkDone(page, shot('pickup-done'));
        await page.locator('.screen-actions .primary').click();
        await screenIs(page, 'home');

        await page.locator('.home-actions button').nth(1).click();
        await screenIs(page, 'return');
        await see(page, shot('return'), 'return');
        await page.locator('.back').click();

        await page.locator('.home-actions button').nth(2).click();
        await screenIs(page, 'courier-login');
        await see(page, shot('courier-login'), 'courier-login');
        await typeOnKeypad(page, k.scene.courier.number);
        await ok.click();
        await screenIs(page, 'courier-ready');
        await page.locator('.free-doors li').first().waitFor();
        await see(page, shot('courier-ready'), 'courier-ready');

        await options(page).locator('.option-help').click();
        await screenIs(page, 'help');
        await page.locator('.qr').waitFor();
        await see(page, shot('help'), 'help');
        await page.locator('.help-topics button').nth(0).click();
        await screenIs(page, 'help-topic');
        await see(page, shot('help-door-not-open'), 'help-topic');
        await page.locator('.back').click();
        await screenIs(page, 'help');
        // Staff entry is no button of the customer's help: a technician's chord (or corner).
        await page.keyboard.press('Control+Alt+KeyS');
        await screenIs(page, 'service-pin');
        await see(page, shot('service-pin'), 'service-pin');
        await typeOnKeypad(page, PIN);
        await ok.click();
        await screenIs(page, 'maintenance');
        await page.locator('.sensors tbody tr').nth(11).waitFor();
        await see(page, shot('maintenance'), 'maintenance');
        await page.locator('.back').click();
        await screenIs(page, 'home');

        // Out of service: one calm screen; in landscape the support contact takes the
        // other half. It clears itself when the controller answers again.
        k.cabinet.setResponsive(0, false);
        await screenIs(page, 'out-of-service');
        await page.locator('.qr').waitFor();
        await see(page, shot('out-of-service'), 'out-of-service');
        const qr = (await page.locator('.qr').boundingBox())!;
        const { width } = ORIENTATIONS[orientation];
        if (orientation === 'landscape')
          expect(qr.x, 'QR code in the right half').toBeGreaterThan(width / 2);
        expect(qr.width, 'QR code size').toBeGreaterThanOrEqual(300);
        k.cabinet.setResponsive(0, true);
        await screenIs(page, 'home');
      } finally {
        await page.close();
      }
    },
    120_000,
  );
});
