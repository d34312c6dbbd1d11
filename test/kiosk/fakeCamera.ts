import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

const W = 640;
const H = 480;

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

/**
 * A Chromium whose camera sees the given SVG (a QR code) drawn on a white frame: the SVG
 * is rasterised by `painter` (any browser) and fed to Chromium's fake capture device.
 */
export async function browserWithCameraOn(svg: string, painter: Browser): Promise<Browser> {
  const page = await painter.newPage();
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
  return chromium.launch({
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
}
