import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { texts, type SpokenDetail } from '@locker/kiosk';
import { kioskScene, launchBrowser, type KioskScene } from './fixture';

const { sq, sr, tr, en } = texts;
const TEXTS = { sq, sr, tr, en } as const;

let browser: Browser;
let k: KioskScene;
beforeAll(async () => {
  browser = await launchBrowser();
  k = await kioskScene('1:S,2:S');
});
afterAll(async () => {
  await k.stop();
  await browser.close();
});

/** A page that records every utterance the kiosk's synthesiser finished. */
async function listeningPage(language: string): Promise<{ page: Page; spoken: SpokenDetail[] }> {
  const spoken: SpokenDetail[] = [];
  const page = await browser.newPage({ viewport: { width: 1080, height: 1920 } });
  await page.exposeFunction('recordSpoken', (detail: SpokenDetail) => spoken.push(detail));
  await page.addInitScript(() =>
    window.addEventListener('kiosk-spoken', (event) =>
      (window as unknown as { recordSpoken(d: unknown): void }).recordSpoken(
        (event as CustomEvent).detail,
      ),
    ),
  );
  await page.goto(`${k.host.url}?lang=${language}`);
  await page.locator('[data-screen="home"]').waitFor();
  return { page, spoken };
}

/** Waits until this text was synthesised in this language, as audio that is not silence. */
async function heard(spoken: SpokenDetail[], language: string, text: string) {
  await expect
    .poll(() => spoken.find((s) => s.text === text && s.language === language), {
      timeout: 60_000,
      interval: 200,
    })
    .toBeDefined();
  const utterance = spoken.find((s) => s.text === text)!;
  // At 22,050 Hz: a sentence is more than a tenth of a second of sound, and not silent.
  expect(utterance.samples).toBeGreaterThan(2205);
  expect(utterance.peak).toBeGreaterThan(0.05);
}

describe('speech on the device, in each language', () => {
  it.each(Object.keys(TEXTS) as (keyof typeof TEXTS)[])(
    '%s: the speaker button starts it; each screen says its instruction; keys are spoken',
    async (language) => {
      const t = TEXTS[language];
      const { page, spoken } = await listeningPage(language);
      try {
        const speaker = page.locator('.screen-options:visible .option-speech');
        await speaker.click();
        expect(await speaker.getAttribute('aria-pressed')).toBe('true');
        await heard(spoken, language, `${t.title}. ${t.home.instruction}`);

        await page.locator('.home-actions button').nth(0).click();
        await heard(spoken, language, `${t.pickup.title}. ${t.pickup.instruction}`);
        await page.locator('.keypad-keys').getByRole('button', { name: '7', exact: true }).click();
        await heard(spoken, language, '7');
        await page.locator('.key-delete').click();
        await heard(spoken, language, t.keypad.delete);

        await page.locator('.screen-options:visible .option-help').click();
        await heard(spoken, language, `${t.help.title}. ${t.help.instruction}`);
        await page.locator('.help-topics button').nth(0).click();
        await heard(spoken, language, `${t.help.doorNotOpen}. ${t.help.doorNotOpenAdvice}`);
        await page.locator('.back:visible').click();
        await page.locator('.back:visible').click();

        await page.locator('.back:visible').click();
        await page.locator('.home-actions button').nth(1).click();
        await heard(spoken, language, `${t.return.title}. ${t.return.instruction}`);
      } finally {
        await page.close();
      }
    },
    180_000,
  );

  it('a long press on 5 starts speech without typing a 5', async () => {
    const { page, spoken } = await listeningPage('sq');
    try {
      await page.locator('.home-actions button').nth(0).click();
      const five = page.locator('.key-dot');
      await five.hover();
      await page.mouse.down();
      await page.waitForTimeout(1200);
      await page.mouse.up();
      await heard(spoken, 'sq', `${sq.pickup.title}. ${sq.pickup.instruction}`);
      expect(await page.locator('.keypad-display').getAttribute('data-value')).toBe('');
      expect(
        await page.locator('.screen-options:visible .option-speech').getAttribute('aria-pressed'),
      ).toBe('true');
    } finally {
      await page.close();
    }
  }, 120_000);
});
