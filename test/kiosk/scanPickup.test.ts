import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@locker/server';
import { kioskScene, launchBrowser } from './fixture';
import { checkAxe } from './screenChecks';

// Pickup without typing (issue 25): the recipient's page from the pickup SMS, in the
// recipient's language, and its QR code read by the kiosk's camera in Chromium (a fake
// camera fed a video of that very QR code), opening the door through the same
// `POST /pickup` and the same rate limit as a typed code.

// Copied by hand into docs/screenshots/ for the README when the page changes.
const SHOTS = path.join(REPO_ROOT, 'test-results/screens');
const W = 640;
const H = 480;

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** RGBA pixels as a YUV4MPEG2 video (4:2:0, BT.601 full range), the same frame repeated. */
function y4m(rgba: Buffer, frames: number): Buffer {
  const y = Buffer.alloc(W * H);
  const u = Buffer.alloc((W / 2) * (H / 2));
  const v = Buffer.alloc((W / 2) * (H / 2));
  const clamp = (n: number) => Math.max(0, Math.min(255, Math.round(n)));
  for (let row = 0; row < H; row++)
    for (let col = 0; col < W; col++) {
      const i = (row * W + col) * 4;
      const [r, g, b] = [rgba[i]!, rgba[i + 1]!, rgba[i + 2]!];
      y[row * W + col] = clamp(0.299 * r + 0.587 * g + 0.114 * b);
      if (row % 2 === 0 && col % 2 === 0) {
        const j = (row / 2) * (W / 2) + col / 2;
        u[j] = clamp(128 - 0.168736 * r - 0.331264 * g + 0.5 * b);
        v[j] = clamp(128 + 0.5 * r - 0.418688 * g - 0.081312 * b);
      }
    }
  const frame = Buffer.concat([Buffer.from('FRAME\n'), y, u, v]);
  return Buffer.concat([
    Buffer.from(`YUV4MPEG2 W${W} H${H} F10:1 Ip A1:1 C420jpeg\n`),
    ...Array.from({ length: frames }, () => frame),
  ]);
}

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
      await page.goto('about:blank');
      const pixels = await page.evaluate(
        async ({ svg, W, H }) => {
          const image = new Image();
          image.src = `data:image/svg+xml;base64,${btoa(svg)}`;
          await image.decode();
          const canvas = document.createElement('canvas');
          canvas.width = W;
          canvas.height = H;
          const context = canvas.getContext('2d')!;
          context.fillStyle = '#fff';
          context.fillRect(0, 0, W, H);
          context.drawImage(image, (W - 360) / 2, (H - 360) / 2, 360, 360);
          const data = context.getImageData(0, 0, W, H).data;
          let binary = '';
          for (let i = 0; i < data.length; i += 0x8000)
            binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
          return btoa(binary);
        },
        { svg, W, H },
      );
      await page.close();
      const video = path.join(mkdtempSync(path.join(tmpdir(), 'kiosk-camera-')), 'qr.y4m');
      writeFileSync(video, y4m(Buffer.from(pixels, 'base64'), 10));

      camera = await chromium.launch({
        executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--no-first-run',
          '--use-fake-ui-for-media-stream',
          '--use-fake-device-for-media-stream',
          `--use-file-for-fake-video-capture=${video}`,
        ],
      });
      const kiosk = await camera.newPage({ viewport: { width: 1080, height: 1920 } });
      await kiosk.goto(`${k.host.url}?lang=en`);
      await kiosk.getByRole('button', { name: 'Pick up a parcel' }).click();
      await kiosk.getByText('Or hold the QR code from your SMS link up to the camera.').waitFor();
      // Nothing typed: the camera reads the code, and the door opens.
      await kiosk
        .getByRole('heading', { name: `Door ${parcels.en!.door} is open` })
        .waitFor({ timeout: 20_000 });
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
