import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { texts } from '@locker/kiosk';
import { REPO_ROOT } from '@locker/server';
import { waitFor } from '@locker/server/testing';
import { kioskScene, launchBrowser, typeOnKeypad, type KioskScene } from './fixture';
import { LANGUAGES, ORIENTATIONS, checkDoorNumber, checkScreen } from './screenChecks';

// The screens of the door supervision (issue 31), in the four languages: a door found
// already open at a pickup, and a cabinet whose every door reads open (suspect polarity).

const SHOTS = path.join(REPO_ROOT, 'test-results/screens');
const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => String(values[key]));

let browser: Browser;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchBrowser();
});
afterAll(() => browser.close());

describe('a door found open at a pickup', () => {
  let k: KioskScene;
  beforeAll(async () => {
    k = await kioskScene('1:S,2:S,3:S,4:S,5:S');
  });
  afterAll(() => k.stop());

  it.each(LANGUAGES.map((language, i) => [language, i] as const))(
    '%s: said plainly, nothing sent, the staff told; the map shows the door',
    async (language, i) => {
      const t = texts[language];
      const orientation = language === 'en' ? 'landscape' : 'portrait';
      const page: Page = await browser.newPage({ viewport: ORIENTATIONS.portrait });
      try {
        const { code, door } = await k.scene.deposit();
        expect(door).toBe(i + 1);
        k.cabinet.propOpen(door, true);
        const pulses: number[] = [];
        const counted = (p: number) => pulses.push(p);
        k.cabinet.on('unlock', counted);
        await page.goto(`${k.host.url}?lang=${language}`);
        await page.locator('[data-screen="home"]').waitFor();
        await page.getByRole('button', { name: t.home.pickup }).click();
        await typeOnKeypad(page, code);
        await page.locator('.key-primary').click();
        await page
          .getByRole('heading', { name: fill(t.supervision.foundOpen, { door }) })
          .waitFor();
        await page.getByText(`${t.pickup.take} ${t.supervision.staffTold}`).waitFor();
        k.cabinet.off('unlock', counted);
        expect(pulses).toEqual([]);
        const shot = `portrait-${language}-pickup-door-found-open`;
        await checkScreen(page, shot);
        await checkDoorNumber(page, shot);
        await page.screenshot({ path: path.join(SHOTS, `${shot}.png`) });
        if (orientation === 'landscape') {
          await page.setViewportSize(ORIENTATIONS.landscape);
          const wide = `landscape-${language}-pickup-door-found-open`;
          await checkScreen(page, wide);
          await page.screenshot({ path: path.join(SHOTS, `${wide}.png`) });
        }
      } finally {
        await page.close();
      }
    },
    120_000,
  );
});

describe('a cabinet whose every door reads open (suspect polarity)', () => {
  let k: KioskScene;
  beforeAll(async () => {
    k = await kioskScene(
      '1:S,2:S',
      {},
      {
        lock: { kind: 'simulator', boards: 1, faults: { invertedHook: true } },
      },
    );
    await waitFor(async () =>
      (await k.core.getState()).condition === 'doors_untrusted' ? true : undefined,
    );
  });
  afterAll(() => k.stop());

  it.each(LANGUAGES)(
    '%s: honestly out of service, saying why, nothing offered',
    async (language) => {
      const t = texts[language];
      const page: Page = await browser.newPage({ viewport: ORIENTATIONS.portrait });
      try {
        await page.goto(`${k.host.url}?lang=${language}`);
        await page.getByRole('heading', { name: t.outOfService.title }).waitFor();
        await page.getByText(t.supervision.untrusted).waitFor();
        expect(await page.getByRole('button', { name: t.home.pickup }).count()).toBe(0);
        const shot = `portrait-${language}-doors-untrusted`;
        await checkScreen(page, shot);
        await page.screenshot({ path: path.join(SHOTS, `${shot}.png`) });
      } finally {
        await page.close();
      }
    },
    120_000,
  );
});
