import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { texts, type SpeechReadyDetail, type SpokenDetail } from '@locker/kiosk';
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

  it('the engine and all four voices are warm before the first touch, and warming starts after the first paint, silently', async () => {
    const page = await browser.newPage({ viewport: { width: 1080, height: 1920 } });
    try {
      // Everything the page tells, in order, from before its first script runs.
      await page.addInitScript(() => {
        const log: { what: string; detail?: unknown }[] = [];
        (window as unknown as { speechLog: typeof log }).speechLog = log;
        for (const what of ['kiosk-speech-ready', 'kiosk-speaking'])
          window.addEventListener(what, (event) =>
            log.push({ what, detail: (event as CustomEvent).detail }),
          );
        window.addEventListener('pointerdown', () => log.push({ what: 'touch' }), {
          capture: true,
        });
      });
      const log = () =>
        page.evaluate(
          () =>
            (window as unknown as { speechLog: { what: string; detail?: unknown }[] }).speechLog,
        );
      await page.goto(`${k.host.url}?lang=tr`);
      await page.locator('[data-screen="home"]').waitFor();
      // Nobody touches the screen: the kiosk warms itself.
      await expect
        .poll(async () => (await log()).map((e) => e.what), { timeout: 60_000, interval: 200 })
        .toContain('kiosk-speech-ready');
      const before = await log();
      // Warming is silent: nothing was played, and it ran with no touch at all.
      expect(before.map((e) => e.what)).toEqual(['kiosk-speech-ready']);
      const ready = before[0]!.detail as SpeechReadyDetail;
      // Every language's voice, the station's own (Turkish here) last so it stays loaded.
      expect([...ready.voices].sort()).toEqual(['en-gb', 'sq', 'sr', 'tr']);
      expect(ready.voices.at(-1)).toBe('tr');
      // Off the first paint's path: warming began once the home screen had painted.
      const firstPaint = await page.evaluate(
        () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      );
      expect(firstPaint).toBeDefined();
      expect(ready.startedAt).toBeGreaterThanOrEqual(firstPaint!);
      expect(ready.readyAt).toBeGreaterThan(ready.startedAt);

      // The first touch now speaks the home instruction, with a warm engine.
      await page.locator('.screen-options:visible .option-speech').click();
      await expect
        .poll(async () => (await log()).map((e) => e.what), { timeout: 60_000, interval: 200 })
        .toEqual(['kiosk-speech-ready', 'touch', 'kiosk-speaking']);
      const first = (await log())[2]!.detail as SpokenDetail;
      expect(first.text).toBe(`${tr.title}. ${tr.home.instruction}`);
      expect(first.language).toBe('tr');
    } finally {
      await page.close();
    }
  }, 120_000);
});
