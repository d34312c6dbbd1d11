import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashTechnicianPin, texts } from '@locker/kiosk';
import { REPO_ROOT, admin, type RunningServer } from '@locker/server';
import { kioskScene, launchBrowser, typeOnKeypad, type KioskScene } from './fixture';
import { restart } from './restart';
import { LANGUAGES, ORIENTATIONS, checkControls, checkScreen } from './screenChecks';

const PIN = '482913';
const SHOTS = path.join(REPO_ROOT, 'test-results/screens');
const PORTRAIT = { width: 1080, height: 1920 };

let browser: Browser;
let k: KioskScene;
beforeAll(async () => {
  browser = await launchBrowser();
  // Two boards, 32 doors: more rows than the maintenance view shows at once.
  k = await kioskScene(
    Array.from({ length: 32 }, (_, i) => `${i + 1}:${i % 4 === 3 ? 'M' : 'S'}`).join(','),
    {},
    { technicianPinHash: hashTechnicianPin(PIN), lock: { kind: 'simulator', boards: 2 } },
  );
});
afterAll(async () => {
  await k.stop();
  await browser.close();
});

/** `clock`: the page's timers and Date are Playwright's, so a test can jump time forward. */
async function openPage(scene: KioskScene, { clock = false } = {}): Promise<Page> {
  const page = await browser.newPage({ viewport: PORTRAIT });
  if (clock) await page.clock.install();
  await page.goto(`${scene.host.url}?lang=en`);
  await page.locator('[data-screen="home"]').waitFor();
  return page;
}

const ok = (page: Page) => page.locator('.key-primary');

/**
 * The maintenance table is not clipped to a few rows: its region shows at least 12 whole
 * rows, a keyboard reaches it by Tab, and End scrolls it to the last door.
 */
async function checkMaintenanceTable(page: Page, screen: string): Promise<void> {
  const region = page.getByRole('region', { name: 'Door sensors' });
  const rows = page.locator('.sensors tbody tr');
  const wholeRows = () =>
    page.evaluate(() => {
      const frame = document.querySelector('.maintenance-scroll')!.getBoundingClientRect();
      return [...document.querySelectorAll('.sensors tbody tr')]
        .map((row) => row.getBoundingClientRect())
        .filter((r) => r.top >= frame.top - 1 && r.bottom <= frame.bottom + 1).length;
    });
  await rows.nth(31).waitFor();
  expect(await wholeRows(), `${screen}: rows shown at once`).toBeGreaterThanOrEqual(12);
  await page.locator('body').focus();
  for (let i = 0; i < 20 && !(await region.evaluate((e) => e === document.activeElement)); i++)
    await page.keyboard.press('Tab');
  expect(await region.evaluate((e) => e === document.activeElement), `${screen}: Tab`).toBe(true);
  await page.keyboard.press('End');
  await expect
    .poll(() =>
      rows.nth(31).evaluate((row) => {
        const frame = row.closest('.maintenance-scroll')!.getBoundingClientRect();
        return row.getBoundingClientRect().bottom <= frame.bottom + 1;
      }),
    )
    .toBe(true);
  await page.keyboard.press('Home');
}
const shown = (page: Page) => page.locator('.keypad-display').getAttribute('data-value');

describe('screen flows', () => {
  it('rate limited: a neutral countdown, OK off, the code kept, and OK back by itself at zero', async () => {
    await k.stack.sql`delete from rate_limit_windows`;
    const page = await openPage(k);
    try {
      await page.getByRole('button', { name: 'Pick up a parcel' }).click();
      await typeOnKeypad(page, '12345678');
      for (let attempt = 1; attempt <= 10; attempt++) {
        await Promise.all([
          page.waitForResponse((r) => r.url().endsWith('/bridge/pickup')),
          ok(page).click(),
        ]);
      }
      // The window's first hits age: the limit ends a few seconds after the next attempt.
      await k.stack.sql`
        update rate_limit_windows
           set attempts = array(select a - interval '55 seconds' from unnest(attempts) a)`;
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/bridge/pickup')),
        ok(page).click(),
      ]);
      const message = page.locator('.message');
      await expect
        .poll(() => message.textContent())
        .toMatch(/^Too many attempts\. Please wait \d+ s\.$/);
      expect(await message.getAttribute('class')).toContain('message-info');
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(await ok(page).isDisabled()).toBe(true);
      expect(await shown(page)).toBe('12345678');
      await checkScreen(page, 'rate-limited');
      // Counts down to an automatic re-enable; it never ends on "wait 0 s".
      await message.waitFor({ state: 'detached', timeout: 20_000 });
      expect(await ok(page).isEnabled()).toBe(true);
      expect(await shown(page)).toBe('12345678');
    } finally {
      await page.close();
    }
  });

  it('help from an entry screen returns to it with what was typed', async () => {
    const page = await openPage(k);
    try {
      await page.getByRole('button', { name: 'Pick up a parcel' }).click();
      await typeOnKeypad(page, '1234');
      await page.getByRole('button', { name: 'Help' }).click();
      await page.locator('[data-screen="help"]').waitFor();
      await page.getByText('Support: +383 38 555 000').waitFor();
      expect(await page.getByRole('img', { name: /Scan this code/ }).count()).toBe(1);
      await page.getByRole('button', { name: 'The door will not close' }).click();
      await page.getByText('push the door until it clicks', { exact: false }).waitFor();
      await page.getByRole('button', { name: 'Back' }).click();
      await page.getByRole('button', { name: 'My parcel is not inside' }).click();
      await page.getByText('call support with your code', { exact: false }).waitFor();
      await page.getByRole('button', { name: 'Back' }).click();
      await page.getByRole('button', { name: 'Back' }).click();
      await page.locator('[data-screen="pickup"]').waitFor();
      expect(await shown(page)).toBe('1234');
    } finally {
      await page.close();
    }
  });

  it('the service menu refuses a wrong PIN and opens the maintenance view for the right one', async () => {
    const page = await openPage(k);
    try {
      await page.keyboard.press('Control+Alt+KeyS');
      await page.locator('[data-screen="service-pin"]').waitFor();
      await typeOnKeypad(page, '000000');
      // The PIN is never shown, only dots.
      expect(await page.locator('.keypad-display').textContent()).toBe('••••••');
      await ok(page).click();
      await page.getByText('Wrong PIN.').waitFor();
      expect(await page.getByRole('heading', { name: 'Maintenance' }).count()).toBe(0);
      await typeOnKeypad(page, PIN);
      await ok(page).click();
      await page.getByRole('heading', { name: 'Maintenance' }).waitFor();
      await page.locator('.sensors').waitFor();
      await page.getByRole('button', { name: 'Leave the service menu' }).click();
      await page.locator('[data-screen="home"]').waitFor();
    } finally {
      await page.close();
    }
  });

  it('the maintenance view shows every door, reachable by keyboard, in both orientations', async () => {
    const page = await openPage(k);
    try {
      await page.keyboard.press('Control+Alt+KeyS');
      await typeOnKeypad(page, PIN);
      await ok(page).click();
      await page.getByRole('heading', { name: 'Maintenance' }).waitFor();
      await checkMaintenanceTable(page, 'maintenance-portrait');
      await checkScreen(page, 'maintenance-portrait');
      await page.setViewportSize({ width: 1920, height: 1080 });
      await checkMaintenanceTable(page, 'maintenance-landscape');
      await checkScreen(page, 'maintenance-landscape');
    } finally {
      await page.close();
    }
  });

  it('staff entry is invisible to customers: no button in help, a 3 s hold on the corner', async () => {
    const page = await openPage(k, { clock: true });
    const corner = page.getByTestId('staff-corner');
    const hold = async (ms: number) => {
      const box = (await corner.boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.clock.fastForward(ms);
    };
    try {
      // Nothing a customer can see, hear or tab to.
      await page.getByRole('button', { name: 'Help' }).click();
      await page.locator('[data-screen="help"]').waitFor();
      expect(await page.getByRole('button', { name: /service/i }).count()).toBe(0);
      expect(await corner.getAttribute('aria-hidden')).toBe('true');
      expect(await corner.evaluate((e) => e.tabIndex)).toBe(-1);
      expect(await corner.evaluate((e) => e.textContent)).toBe('');
      await page.getByRole('button', { name: 'Back' }).click();

      // A touch that lets go early, or slides off the corner, opens nothing.
      await hold(2_500);
      await page.mouse.up();
      await page.clock.fastForward(1_000);
      await hold(2_000);
      await page.mouse.move(400, 400);
      await page.clock.fastForward(2_000);
      await page.mouse.up();
      expect(await page.locator('[data-screen="home"]').count()).toBe(1);
      // Held for 3 s: the PIN pad, from a customer's half-typed code too.
      await page.getByRole('button', { name: 'Pick up a parcel' }).click();
      await typeOnKeypad(page, '12');
      await hold(2_900);
      expect(await page.locator('[data-screen="pickup"]').count()).toBe(1);
      await page.clock.fastForward(200);
      await page.locator('[data-screen="service-pin"]').waitFor();
      await page.mouse.up();
      expect(await page.locator('.keypad-display').textContent()).toBe('\u00a0');
      await page.getByRole('button', { name: 'Back' }).click();
      await page.locator('[data-screen="home"]').waitFor();
    } finally {
      await page.close();
    }
  });

  it('a technician reaches the service menu while the locker is out of service', async () => {
    const page = await openPage(k);
    try {
      await admin.setTerminalStatus(k.stack.sql, k.scene.terminal.id, 'disabled');
      await page.locator('[data-screen="out-of-service"]').waitFor();
      await page.getByText('switched off by the operator').waitFor();
      // A finger on the corner, held (the real clock): the PIN pad comes after 3 s.
      const box = (await page.getByTestId('staff-corner').boundingBox())!;
      await page.mouse.move(box.x + 10, box.y + 10);
      await page.mouse.down();
      await page.locator('[data-screen="service-pin"]').waitFor();
      await page.mouse.up();
      await typeOnKeypad(page, PIN);
      await ok(page).click();
      await page.getByRole('heading', { name: 'Maintenance' }).waitFor();
      await page.locator('.sensors').waitFor();
      await checkScreen(page, 'maintenance-out-of-service');
      await page.getByRole('button', { name: 'Leave the service menu' }).click();
      // Still out of service: the calm screen again, not the tasks.
      await page.locator('[data-screen="out-of-service"]').waitFor();
    } finally {
      await admin.setTerminalStatus(k.stack.sql, k.scene.terminal.id, 'online');
      await page.close();
    }
    await expect.poll(async () => (await k.core.getState()).condition).toBe('ok');
  });
});

describe('a customer typing when the service drops', () => {
  // No heartbeat in the test's time: the customer's own OK is the first call to fail.
  let quiet: KioskScene;
  beforeAll(async () => {
    quiet = await kioskScene(
      '1:S,2:S',
      {},
      { heartbeatIntervalSeconds: 60, cabinetPollSeconds: 60 },
    );
  });
  afterAll(() => quiet.stop());

  it('is told the locker is out of service (not "try again") with OK off, and it clears itself', async () => {
    const page = await openPage(quiet);
    let revived: RunningServer | undefined;
    try {
      await page.getByRole('button', { name: 'Pick up a parcel' }).click();
      await typeOnKeypad(page, '12345678');
      await quiet.stack.server.close();
      await ok(page).click();
      const message = page.locator('.message');
      await message
        .getByText('The locker cannot reach the parcel service right now.', { exact: false })
        .waitFor();
      expect(await message.textContent()).toBe(
        'This locker is out of service. The locker cannot reach the parcel service right now. Your parcels are safe inside. Please come back later or call support.',
      );
      expect(await page.getByText('try again in a moment', { exact: false }).count()).toBe(0);
      expect(await ok(page).isDisabled()).toBe(true);
      expect(await shown(page)).toBe('12345678');
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'portrait-en-pickup-out-of-service.png') });
      // The same truth in every language, within the screen in both orientations.
      for (const [orientation, viewport] of Object.entries(ORIENTATIONS)) {
        await page.setViewportSize(viewport);
        for (const language of LANGUAGES) {
          const t = texts[language];
          await page.locator(`.languages button[lang="${language}"]`).click();
          await expect
            .poll(() => message.textContent())
            .toBe(
              `${t.outOfService.title}. ${t.outOfService.service_unreachable} ${t.outOfService.safe}`,
            );
          await checkScreen(page, `pickup-out-of-service-${orientation}-${language}`);
        }
      }
      await page.locator('.languages button[lang="en"]').click();
      // Typing on is no use meanwhile, but harmless: the code stays to be sent later.
      await page.locator('.key-delete').click();
      await typeOnKeypad(page, '8');
      expect(await ok(page).isDisabled()).toBe(true);

      // The service is back: the kiosk finds out by itself, the screen clears, OK is back.
      revived = await restart(quiet.stack.url, quiet.stack.databaseUrl);
      await message.waitFor({ state: 'detached', timeout: 30_000 });
      expect(await ok(page).isEnabled()).toBe(true);
      expect(await shown(page)).toBe('12345678');
    } finally {
      await page.close();
      await revived?.close();
    }
  });
});

// The idle timer runs in the page: its clock is jumped forward instead of waited out, so
// these tests take a second, not the 21 s idle time twice over.
describe('idle time', () => {
  let idle: KioskScene;
  beforeAll(async () => {
    idle = await kioskScene('1:S,2:S', { idleTimeoutSeconds: 21 });
  });
  afterAll(() => idle.stop());

  it('warns 20 s before the timeout, within reach; "I need more time" extends it', async () => {
    const page = await openPage(idle, { clock: true });
    try {
      await page.getByRole('button', { name: 'Pick up a parcel' }).click();
      await typeOnKeypad(page, '12');
      const warning = page.getByRole('alertdialog');
      // At least 1.5 s without a touch (the page's clock also runs on by itself): at most
      // 19.5 s left of 21, so the warning is up.
      await page.clock.fastForward(1_500);
      await warning.waitFor();
      await warning.getByText(/goes back to the start in (1\d|20) s/).waitFor();
      await checkControls(page, 'idle-warning');
      // A finger on the button. The touch itself counts as activity and takes the warning
      // away at once, so Playwright's click, which checks the element again afterwards,
      // would report it detached: tap where the button is instead.
      const more = await page.getByRole('button', { name: 'I need more time' }).boundingBox();
      await page.mouse.click(more!.x + more!.width / 2, more!.y + more!.height / 2);
      await warning.waitFor({ state: 'detached' });
      expect(await shown(page)).toBe('12');
      // Left alone, it warns again, then goes home after the whole idle time and forgets
      // what was typed.
      await page.clock.fastForward(1_500);
      await warning.waitFor();
      expect(await page.locator('[data-screen="pickup"]').count()).toBe(1);
      await page.clock.fastForward(20_000);
      // Home at once: left to the real clock it would take another 19.5 s.
      await page.locator('[data-screen="home"]').waitFor({ timeout: 10_000 });
      await page.getByRole('button', { name: 'Pick up a parcel' }).click();
      expect(await shown(page)).toBe('');
    } finally {
      await page.close();
    }
  });

  it('never times out while a door is open', async () => {
    const page = await openPage(idle, { clock: true });
    try {
      const { code, door } = await idle.scene.deposit();
      await page.getByRole('button', { name: 'Pick up a parcel' }).click();
      await typeOnKeypad(page, code);
      await ok(page).click();
      await page.locator('.door-open').waitFor();
      // Past the whole idle time in one jump: the idle timer has run and it is still the
      // door screen, with no warning; the door's own close is what ends it.
      await page.clock.fastForward(25_000);
      await page.clock.fastForward(1_000);
      expect(await page.locator('.door-open').count()).toBe(1);
      expect(await page.getByRole('alertdialog').count()).toBe(0);
      idle.cabinet.closeDoor(door, false);
      await page.locator('.door-closed_ok').waitFor();
      // The pickup's report has gone out before the scene is stopped.
      await expect
        .poll(async () => (await idle.core.getState()).pendingReports, { timeout: 20_000 })
        .toBe(0);
    } finally {
      await page.close();
    }
  });
});
