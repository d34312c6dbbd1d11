import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliActor, createOperator, PASSWORD } from '@locker/server/testing';
import { checkAxe } from '../kiosk/screenChecks';
import { forTheReadme, screenFile } from '../screenshots';
import { consoleStack, DESK, operatorPage, TABLET, type ConsoleStack } from './fixture';
import { DRITA_PHONE, networkScene } from './scene';

// Every screen of the console: axe (WCAG 2.2 AA) finds nothing, the keyboard reaches the
// skip link first with a visible focus, nothing spills sideways at 1280×720; and each is
// photographed for the README (docs/screenshots/console-*.png).

const execFileAsync = promisify(execFile);

let c: ConsoleStack;
let scene: Awaited<ReturnType<typeof networkScene>>;
beforeAll(async () => {
  c = await consoleStack();
  scene = await networkScene(c.stack);
});
afterAll(async () => c?.stop());

/** Keyboard first: Tab lands on the skip link, drawn with a visible outline. */
async function checkKeyboard(page: Page, screen: string) {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.locator('body').focus();
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    return {
      text: el.textContent?.trim(),
      outline: parseFloat(style.outlineWidth),
      shown: box.top >= 0 && box.bottom <= innerHeight,
    };
  });
  expect(focused, screen).toMatchObject({ outline: 3, shown: true });
}

/** Nothing wider than the window: no sideways scroll at this size. */
async function checkFits(page: Page, screen: string) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  expect(overflow, `${screen}: wider than the window`).toBeLessThanOrEqual(0);
}

/** What a barcode scanner reads from an image on the page (zbarimg on its screenshot). */
async function scanQr(image: Locator): Promise<string> {
  const png = path.join(os.tmpdir(), `console-qr-${process.pid}-${Date.now()}.png`);
  await image.screenshot({ path: png });
  try {
    const { stdout } = await execFileAsync('zbarimg', ['--quiet', '--raw', png]);
    return stdout.trim();
  } finally {
    await rm(png, { force: true });
  }
}

async function screen(page: Page, name: string, options: { skipLink?: boolean } = {}) {
  await page.evaluate(() => document.fonts.ready);
  await checkAxe(page, name);
  await checkFits(page, name);
  const file = screenFile(`console-${name}.png`);
  await page.screenshot({ path: file });
  forTheReadme(file);
  if (options.skipLink !== false) await checkKeyboard(page, name);
}

describe('signed out', () => {
  it('sign-in, the TOTP set-up with its QR code, and the recovery codes', async () => {
    const email = `shots.${Date.now()}@ops.example`;
    const issued = await createOperator(
      c.stack.sql,
      cliActor(),
      { email, role: 'technician', stations: ['PRN-022'] },
      c.stack.url,
    );
    const context = await c.browser.newContext({ viewport: DESK });
    const page = await context.newPage();
    await page.goto(issued.setup_link);
    await page.getByRole('heading', { name: 'Choose your password' }).waitFor();
    await screen(page, 'setup', { skipLink: false });
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('The same password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('link', { name: 'Go to sign-in' }).click();
    await page.getByLabel('E-mail').fill(email);
    await screen(page, 'sign-in', { skipLink: false });
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    await screen(page, 'totp-setup', { skipLink: false });
    const secret = (await page.getByTestId('totp-secret').textContent())!.replace(/\s/g, '');
    const { totpCode } = await import('@locker/server/testing');
    await page
      .getByLabel('6-digit code from your authenticator app')
      .fill(totpCode(secret, c.clock.now()));
    c.clock.advance(30_000);
    await page.getByRole('button', { name: 'Confirm and sign in' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    await screen(page, 'recovery-codes', { skipLink: false });
    await context.close();
  });
});

describe('signed in', () => {
  it('now: the counts and the alert inbox, an alert open in the side panel, the shortcuts', async () => {
    const { page, context } = await operatorPage(c, 'operations');
    await page.goto(`${c.stack.url}/ops/`);
    await page.getByRole('button', { name: 'Terminal offline' }).waitFor();
    await page.locator('.live-ok').waitFor();
    await screen(page, 'home');
    await page.getByRole('button', { name: 'Door fault' }).click();
    await page.getByRole('heading', { name: 'Door fault', level: 2 }).waitFor();
    await screen(page, 'alert-panel');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await checkAxe(page, 'shortcuts');
    await page.keyboard.press('Escape');
    await page.goto(`${c.stack.url}/ops/alerts?status=all`);
    await page.getByRole('heading', { name: 'All (history)' }).waitFor();
    await page.getByRole('button', { name: 'Terminal offline' }).waitFor();
    await screen(page, 'alerts');
    await context.close();
  });

  it('fleet, sorted offline first', async () => {
    const { page, context } = await operatorPage(c, 'operations');
    await page.goto(`${c.stack.url}/ops/fleet?sort=offline_first`);
    await page.getByRole('link', { name: 'PRZ-007' }).waitFor();
    const first = await page.locator('tbody tr').first().textContent();
    expect(first).toContain('PRZ-007');
    await screen(page, 'fleet');
    await context.close();
  });

  it('a station: the door grid, a door chosen with its remote open and service forms, on a desk and on a tablet', async () => {
    const { page, context } = await operatorPage(c, 'operations');
    await page.goto(`${c.stack.url}/ops/stations/PRN-022`);
    await page.getByRole('heading', { name: 'Needs a look' }).waitFor();
    await screen(page, 'station');
    await page.getByRole('button', { name: new RegExp(`^${scene.late.door} M`) }).click();
    await page
      .getByRole('heading', { name: /Open door \d+ at PRN-022 Prishtina Bregu i Diellit\?/ })
      .waitFor();
    await page.getByRole('heading', { name: 'Door history' }).waitFor();
    await screen(page, 'station-door');
    await context.close();
    const tablet = await operatorPage(c, 'technician', { stations: ['PRN-022'], viewport: TABLET });
    await tablet.page.goto(`${c.stack.url}/ops/stations/PRN-022`);
    await tablet.page.getByRole('button', { name: /^14 / }).click();
    await tablet.page.getByRole('heading', { name: 'Door 14 at PRN-022', exact: true }).waitFor();
    await screen(tablet.page, 'station-tablet');
    await tablet.context.close();
  });

  it('parcels: found by phone digits with the timeline, and a station’s overdue list, for support', async () => {
    const { page, context } = await operatorPage(c, 'support');
    await page.goto(`${c.stack.url}/ops/parcels?q=${DRITA_PHONE.slice(-4)}&overdue=PRN-022`);
    await page.getByRole('button', { name: scene.drita.shipment.tracking_number }).click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await page.getByRole('heading', { name: 'Overdue parcels of a station' }).waitFor();
    await page.getByText('Export CSV').waitFor();
    await screen(page, 'parcels');
    await context.close();
  });

  it('people and keys: couriers, operators, a key shown once, terminals', async () => {
    const { page, context } = await operatorPage(c, 'admin');
    await page.goto(`${c.stack.url}/ops/people/couriers`);
    await page.getByRole('cell', { name: 'Besa Hoxha', exact: true }).waitFor();
    await screen(page, 'people-couriers');
    await page.getByRole('link', { name: 'Operators' }).click();
    await page.getByLabel('E-mail').fill('drita@ops.example');
    await page.getByLabel('Role').selectOption('support');
    await page.getByRole('button', { name: 'Add operator' }).click();
    await page.getByText(/Set-up link for drita@ops.example/).waitFor();
    await screen(page, 'people-operators');
    await page.getByRole('link', { name: 'Organizations and API keys' }).click();
    await page.getByRole('button', { name: 'Keys of Shop Tirana' }).click();
    await page.getByRole('button', { name: 'Issue a key' }).click();
    await page.getByText('API key for Shop Tirana').waitFor();
    expect(await page.locator('.secret-value').textContent()).toMatch(/^sk_/);
    await screen(page, 'people-keys');
    await page.getByRole('link', { name: 'Terminals' }).click();
    await page.getByRole('rowheader', { name: /PRZ-007/ }).waitFor();
    await screen(page, 'people-terminals');

    // A new terminal: its one-time enrolment code, grouped as the kiosk's keypad shows it,
    // its expiry and the same code as a QR code a scanner reads back.
    await page.getByLabel('Station code').fill('TIR-101');
    await page.getByRole('button', { name: 'Enrol terminal' }).click();
    const card = page.getByRole('group', { name: 'Enrolment code for the terminal at TIR-101' });
    await card.waitFor();
    const shown = (await card.getByTestId('enrolment-code').textContent())!;
    expect(shown).toMatch(/^\d{4}\u2002\d{4}\u2002\d{2}$/);
    const first = shown.replace(/\D/g, '');
    await card.getByText(/Valid once, until .*2\d{3}/).waitFor();
    await card.getByText(/service menu, chooses “Enrol with a code”/).waitFor();
    expect(await scanQr(card.getByRole('img', { name: /QR code of the enrolment code/ }))).toBe(
      `${first.slice(0, 4)}-${first.slice(4, 8)}-${first.slice(8)}`,
    );
    await screen(page, 'people-terminals-enrol');

    // A new code for it: asked first, then shown; only the newest one is still open.
    const [made] = await c.stack.sql<{ id: string }[]>`
      select t.id from terminals t join stations s on s.id = t.station_id
       where s.code = 'TIR-101' order by t.created_at desc limit 1`;
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await page
      .getByRole('button', {
        name: `New enrolment code for terminal ${made!.id.slice(0, 8)} at TIR-101`,
      })
      .click();
    await card.getByText('Any earlier enrolment code of this terminal no longer works.').waitFor();
    expect(asked).toMatch(/Its earlier code stops working/);
    const second = (await card.getByTestId('enrolment-code').textContent())!.replace(/\D/g, '');
    expect(second).toMatch(/^\d{10}$/);
    expect(second).not.toBe(first);
    expect(await scanQr(card.getByRole('img', { name: /QR code of the enrolment code/ }))).toBe(
      `${second.slice(0, 4)}-${second.slice(4, 8)}-${second.slice(8)}`,
    );
    const open = await c.stack.sql<{ n: number }[]>`
      select count(*)::int as n from terminal_enrolment_codes
       where terminal_id = ${made!.id} and used_at is null`;
    expect(open[0]!.n).toBe(1);
    await checkAxe(page, 'people-terminals-new-code');
    await context.close();
  });

  it('the audit log', async () => {
    const { page, context } = await operatorPage(c, 'admin');
    await page.goto(`${c.stack.url}/ops/audit`);
    await page.getByRole('cell', { name: 'session.second_factor' }).first().waitFor();
    await screen(page, 'audit');
    const exported = await page.evaluate(async () => {
      const answer = await fetch('/ops/v1/audit/export');
      return { type: answer.headers.get('content-type'), text: await answer.text() };
    });
    expect(exported.type).toMatch(/^text\/csv/);
    await context.close();
  });

  it('in Albanian: the first screen and a station', async () => {
    const { page, context } = await operatorPage(c, 'operations', { language: 'sq' });
    await page.goto(`${c.stack.url}/ops/`);
    await page.getByRole('heading', { name: 'Çfarë kërkon vëmendje tani' }).waitFor();
    await page.getByRole('button', { name: 'Terminali jashtë linje' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('sq');
    await screen(page, 'home-sq');
    await page.goto(`${c.stack.url}/ops/stations/PRN-022`);
    await page.getByRole('heading', { name: 'Duhet parë' }).waitFor();
    await screen(page, 'station-sq');
    await context.close();
  });
});
