import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@locker/server';
import { browserWithCameraOn } from './fakeCamera';
import { kioskScene, launchBrowser } from './fixture';
import { checkAxe } from './screenChecks';

// Pickup without typing (issue 25): the recipient's page from the pickup SMS, in the
// recipient's language, and its QR code read by the kiosk's camera in Chromium (a fake
// camera fed a video of that very QR code), opening the door through the same
// `POST /pickup` and the same rate limit as a typed code.

// Copied by hand into docs/screenshots/ for the README when the page changes.
const SHOTS = path.join(REPO_ROOT, 'test-results/screens');

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

describe('pickup without typing', () => {
  it("renders the recipient's page in four languages, and its QR code held to the kiosk's camera opens the door", async () => {
    const k = await kioskScene('1:S,2:S,3:S,4:M');
    let camera: Browser | undefined;
    try {
      const parcels: Record<string, { door: number; code: string; path: string }> = {};
      for (const language of ['sq', 'sr', 'tr', 'en'] as const) {
        const { shipment, door, code } = await k.scene.deposit({
          language,
          name: 'Drita Gashi',
          size: language === 'en' ? 'M' : 'S',
        });
        const text = k.stack.sentSms().find((m) => m.to === shipment.recipient_phone)!.text;
        const link = /\/p\/[A-Za-z0-9]{16}\b/.exec(text);
        expect(link, text).not.toBeNull();
        parcels[language] = { door, code, path: link![0] };
      }

      const page = await browser.newPage({ viewport: { width: 412, height: 915 } });
      for (const [language, parcel] of Object.entries(parcels)) {
        await page.goto(`${k.stack.url}${parcel.path}`);
        expect(await page.getAttribute('html', 'lang')).toBe(language);
        await page.getByText(`${parcel.code.slice(0, 4)} ${parcel.code.slice(4)}`).waitFor();
        await checkAxe(page, `recipient page (${language})`);
        await page.screenshot({
          path: path.join(SHOTS, `recipient-page-${language}.png`),
          fullPage: true,
        });
      }
      // The English recipient's QR code, as the camera will see it: the page's own SVG
      // drawn on a white frame.
      await page.goto(`${k.stack.url}${parcels.en!.path}`);
      const svg = await page.locator('.code svg').evaluate((e) => e.outerHTML);
      // Issue 27: the extension is one press of the page's own form, no script; the page
      // comes back with the later deadline and no second offer.
      const collectBy = page.locator('dt:has-text("Collect by") + dd');
      const before = await collectBy.textContent();
      await page.getByRole('button', { name: 'Keep it 48 hours longer' }).click();
      await page.getByText('It cannot be extended again.').waitFor();
      expect(page.url()).toBe(`${k.stack.url}${parcels.en!.path}`);
      expect(await collectBy.textContent()).not.toBe(before);
      expect(await page.getByRole('button').count()).toBe(0);
      await checkAxe(page, 'recipient page, extended');
      await page.screenshot({
        path: path.join(SHOTS, 'recipient-page-en-extended.png'),
        fullPage: true,
      });
      await page.close();
      camera = await browserWithCameraOn(svg, browser);
      const kiosk = await camera.newPage({ viewport: { width: 1080, height: 1920 } });
      // The camera would not start the first time (busy, slow to come up): the scanner
      // asks again and comes up.
      await kiosk.addInitScript(() => {
        // Every caption the camera's picture was shown with: the camera may read the code
        // and open the door within a moment of coming up, before a look at the screen.
        const shown: string[] = [];
        (window as unknown as { cameraShown: string[] }).cameraShown = shown;
        new MutationObserver(() => {
          for (const figure of document.querySelectorAll('figure.camera:not([hidden])'))
            shown.push(figure.querySelector('figcaption')?.textContent ?? '');
        }).observe(document, { subtree: true, childList: true, attributes: true });
        const devices = navigator.mediaDevices;
        const real = devices.getUserMedia.bind(devices);
        let refused = false;
        devices.getUserMedia = (constraints) => {
          if (refused) return real(constraints);
          refused = true;
          return Promise.reject(
            new DOMException('Could not start video source', 'NotReadableError'),
          );
        };
      });
      await kiosk.goto(`${k.host.url}?lang=en`);
      await kiosk.getByRole('button', { name: 'Pick up a parcel' }).click();
      // Nothing typed: the camera comes up (its second start) with its hint, reads the
      // code, and the door opens.
      await kiosk
        .getByRole('heading', { name: `Door ${parcels.en!.door} is open` })
        .waitFor({ timeout: 30_000 });
      expect(
        await kiosk.evaluate(() => (window as unknown as { cameraShown: string[] }).cameraShown),
      ).toContain('Or hold the QR code from your SMS link up to the camera.');
      // Through the same request and the same limit as a typed code: one attempt counted.
      const [window] = await k.stack.sql<{ n: number }[]>`
        select cardinality(attempts) as n from rate_limit_windows
         where subject = ${k.scene.terminal.id} and bucket = 'pickup'`;
      expect(window?.n).toBe(1);
      await kiosk.close();
    } finally {
      await camera?.close();
      await k.stop();
    }
    // Four pages through axe, two browsers, a camera: Chromium's work.
  }, 180_000);
});
