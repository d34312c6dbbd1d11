import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { texts, type SpeechWarmDetail, type SpokenDetail } from '@locker/kiosk';
import { kioskScene, launchBrowser, type KioskScene } from './fixture';

// Issue 28: the kiosk loads its speech engine and the four voices once the first screen
// has painted, so the first touch on the speaker finds them ready. Order, not time: what
// the page did, in the order it did it, as the page itself saw it.

let browser: Browser;
let k: KioskScene;
beforeAll(async () => {
  browser = await launchBrowser();
  k = await kioskScene('1:S');
});
afterAll(async () => {
  await k.stop();
  await browser.close();
});

interface Logged {
  what: string;
  detail?: unknown;
}
type Logging = Window & { speechLog: Logged[] };

/** Put in the page before its own scripts: a log of paint, workers made, speech events, touches. */
function logFromTheStart() {
  const log: Logged[] = [];
  (window as unknown as Logging).speechLog = log;
  // Registered before the kiosk's own paint observer, so told of the first paint before it.
  new PerformanceObserver((list) => {
    if (list.getEntriesByName('first-contentful-paint').length) log.push({ what: 'paint' });
  }).observe({ type: 'paint', buffered: true });
  const PageWorker = window.Worker;
  window.Worker = class extends PageWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      log.push({ what: 'worker' });
      super(url, options);
    }
  };
  for (const what of [
    'kiosk-speech-warming',
    'kiosk-speech-voice',
    'kiosk-speech-ready',
    'kiosk-speaking',
    'kiosk-spoken',
  ])
    window.addEventListener(what, (event) =>
      log.push({ what, detail: (event as CustomEvent).detail }),
    );
  window.addEventListener('pointerdown', () => log.push({ what: 'touch' }), { capture: true });
}

const logOf = (page: Page) => page.evaluate(() => (window as unknown as Logging).speechLog);
const whats = async (page: Page) => (await logOf(page)).map((e) => e.what);

/** A kiosk page that counts its requests for the voice data. */
async function kioskPage() {
  const page = await browser.newPage({ viewport: { width: 1080, height: 1920 } });
  await page.addInitScript(logFromTheStart);
  const dataRequests: string[] = [];
  page.on('request', (r) => {
    if (/espeak-ng[^/]*\.data$/.test(new URL(r.url()).pathname)) dataRequests.push(r.url());
  });
  return { page, dataRequests };
}

const VOICES = ['en-gb', 'sq', 'sr', 'tr'];
const speakerButton = (page: Page) => page.locator('.screen-options:visible .option-speech');

describe('the speech warm-up', () => {
  it('starts after the first paint and loads all four voices before any touch, silently', async () => {
    const { page, dataRequests } = await kioskPage();
    try {
      await page.goto(`${k.host.url}?lang=tr`);
      await page.locator('[data-screen="home"]').waitFor();
      await expect.poll(() => whats(page), { timeout: 60_000 }).toContain('kiosk-speech-ready');
      const log = await logOf(page);
      // The first paint, then the engine's worker: nothing of speech came before the paint.
      expect(log.map((e) => e.what)).toEqual([
        'paint',
        'worker',
        'kiosk-speech-warming',
        'kiosk-speech-voice',
        'kiosk-speech-voice',
        'kiosk-speech-voice',
        'kiosk-speech-voice',
        'kiosk-speech-ready',
      ]);
      const ready = log.at(-1)!.detail as SpeechWarmDetail;
      expect([...ready.voices].sort()).toEqual(VOICES);
      // The station's language (Turkish here) last, so its voice is the one left set.
      expect(ready.voices.at(-1)).toBe('tr');
      expect(dataRequests).toHaveLength(1);

      // The first touch speaks the home screen's instruction, with nothing more loaded.
      await speakerButton(page).click();
      await expect.poll(() => whats(page), { timeout: 60_000 }).toContain('kiosk-spoken');
      const after = (await logOf(page)).slice(log.length);
      expect(after.map((e) => e.what)).toEqual(['touch', 'kiosk-speaking', 'kiosk-spoken']);
      const spoken = after[2]!.detail as SpokenDetail;
      expect(spoken).toMatchObject({
        text: `${texts.tr.title}. ${texts.tr.home.instruction}`,
        language: 'tr',
      });
      expect(spoken.peak).toBeGreaterThan(0.05);
      expect((await whats(page)).filter((w) => w === 'worker')).toHaveLength(1);
      expect(dataRequests).toHaveLength(1);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('a touch during the warm-up waits for it and is spoken once; nothing loads twice', async () => {
    const { page, dataRequests } = await kioskPage();
    // The voice data is held back until the touch has happened: the touch lands during
    // the warm-up for certain, however fast or slow this machine is.
    let release!: () => void;
    const touched = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    await page.route(/espeak-ng[^/]*\.data$/, async (route) => {
      held();
      await touched;
      await route.continue();
    });
    try {
      await page.goto(`${k.host.url}?lang=sq`);
      await page.locator('[data-screen="home"]').waitFor();
      await holding;
      await speakerButton(page).click();
      expect(await whats(page)).not.toContain('kiosk-speech-ready');
      release();
      await expect.poll(() => whats(page), { timeout: 60_000 }).toContain('kiosk-spoken');
      const log = await whats(page);
      // Warmed first, then spoken: the touch waited, and was spoken once.
      expect(log.filter((w) => w.startsWith('kiosk-'))).toEqual([
        'kiosk-speech-warming',
        'kiosk-speech-voice',
        'kiosk-speech-voice',
        'kiosk-speech-voice',
        'kiosk-speech-voice',
        'kiosk-speech-ready',
        'kiosk-speaking',
        'kiosk-spoken',
      ]);
      expect(log.indexOf('touch')).toBeLessThan(log.indexOf('kiosk-speech-ready'));
      const entries = await logOf(page);
      const ready = entries.find((e) => e.what === 'kiosk-speech-ready')!
        .detail as SpeechWarmDetail;
      // Each voice loaded once, the engine's worker made once, its data fetched once.
      expect([...ready.voices].sort()).toEqual(VOICES);
      expect(log.filter((w) => w === 'worker')).toHaveLength(1);
      expect(dataRequests).toHaveLength(1);
      const spoken = entries.find((e) => e.what === 'kiosk-spoken')!.detail as SpokenDetail;
      expect(spoken).toMatchObject({
        text: `${texts.sq.title}. ${texts.sq.home.instruction}`,
        language: 'sq',
      });
    } finally {
      release();
      await page.close();
    }
  }, 120_000);
});
