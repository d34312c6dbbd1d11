import { afterAll, beforeAll, expect, it } from 'vitest';
import { consoleStack, operatorPage, type ConsoleStack } from './fixture';
import { networkScene } from './scene';

// WCAG 1.4.10 and the brief's 200 % zoom: 1280×720 at 200 % is a 640×360 window. No
// screen may need scrolling sideways to read it (wide tables scroll inside themselves).

let c: ConsoleStack;
beforeAll(async () => {
  c = await consoleStack();
  await networkScene(c.stack);
});
afterAll(async () => c?.stop());

it('every screen reflows at 200 % zoom: nothing wider than the window', async () => {
  const { page, context } = await operatorPage(c, 'admin', {
    viewport: { width: 640, height: 360 },
  });
  for (const [path, ready] of [
    ['/ops/', '.inbox tbody tr'],
    ['/ops/alerts', '.inbox tbody tr'],
    ['/ops/fleet', 'table.fleet tbody tr'],
    ['/ops/stations/PRN-022', '.door'],
    ['/ops/parcels?q=3456', 'tbody tr'],
    ['/ops/people/couriers', 'tbody tr'],
    ['/ops/audit', 'tbody tr'],
  ] as const) {
    await page.goto(c.stack.url + path);
    await page.locator(ready).first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    expect(overflow, path).toBeLessThanOrEqual(0);
  }
  await context.close();
});
