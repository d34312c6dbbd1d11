import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { KioskCore, loadKioskConfig } from '@locker/kiosk';
import {
  generateLinkKey,
  PASSWORD,
  signedInOperator,
  startTestServer,
  testClock,
  totpCode,
  waitFor,
  type TestStack,
} from '@locker/server/testing';
import { writeTestKioskConfig } from '../kiosk/fixture';
import { DESK, launchBrowser } from './fixture';

// The operator console over the live link (issue 23): Debian's Chromium against the real
// server and PostgreSQL, and a real kiosk core on the simulated cabinet, connected to the
// server over the link. The door the operator opens is the simulator's door; a door opened
// by hand on the simulator reaches the station page through the kiosk, the server and the
// operations stream.

const key = generateLinkKey();
let clock: ReturnType<typeof testClock>;
let stack: TestStack;
let core: KioskCore;
let browser: Browser;
let cabinet: NonNullable<KioskCore['hardware']['simulator']>['cabinet'];
let code: string;
let name: string;
let operator: Awaited<ReturnType<typeof signedInOperator>>;
let page: Page;

beforeAll(async () => {
  clock = testClock();
  stack = await startTestServer({ linkSigningKey: key.seed, clock: clock.now });
  const scene = await stack.scene('1:S,2:S,3:M,4:L');
  code = scene.station.code;
  name = scene.station.name;
  // The kiosk's own door-watch interval (its default), so the latency is the one in the field.
  const configFile = writeTestKioskConfig(stack.url, scene.terminal.token, {
    linkPublicKey: key.publicKey,
  });
  core = await KioskCore.start(loadKioskConfig(configFile), { stdout: false });
  await waitFor(async () => {
    const state = await core.getState();
    return state.config?.station_code && state.link === 'connected';
  }, 15_000);
  cabinet = core.hardware.simulator!.cabinet;
  browser = await launchBrowser();
  // An operations operator with a password and an enrolled authenticator (set up through
  // the API); the browser signs in below with both.
  operator = await signedInOperator(stack, clock, 'operations');
});

afterAll(async () => {
  await browser?.close();
  await core?.stop();
  await stack?.close();
});

describe('the station page over the live link', () => {
  it('signs in with the authenticator, opens a door from its panel with a reason and the code again, shows the kiosk’s outcome, and the simulated door opened', async () => {
    const context = await browser.newContext({
      viewport: DESK,
      locale: 'en-GB',
      timezoneId: 'Europe/Belgrade',
    });
    page = await context.newPage();
    await page.goto(`${stack.url}/ops/`);
    await page.getByLabel('E-mail').fill(operator.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Second factor' }).waitFor();
    await page
      .getByLabel('6-digit code from your authenticator app')
      .fill(totpCode(operator.secret!, clock.now()));
    clock.advance(30_000);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'What needs attention now' }).waitFor();

    await page.goto(`${stack.url}/ops/stations/${code}`);
    // The kiosk is connected: the page says so (no "link down" note), door 2 is shut.
    await page.getByRole('cell', { name: /^Up/ }).waitFor();
    await page.getByRole('button', { name: /^2 S.*Free/ }).click();
    await page.getByRole('heading', { name: `Open door 2 at ${code} ${name}?` }).waitFor();
    expect(cabinet.door(2).closed).toBe(true);
    await page.getByLabel('Reason', { exact: true }).fill('customer stuck at the door');
    await page.getByLabel('Authenticator code').fill(operator.code());
    await page.getByRole('button', { name: 'Open door 2' }).click();

    // The outcome the kiosk reported, on screen.
    await page.getByRole('heading', { name: `Opening door 2 at ${code}` }).waitFor();
    await page
      .getByRole('listitem')
      .filter({ hasText: /^✓ Door 2 opened\.$/ })
      .waitFor();
    await page
      .getByRole('status')
      .getByText('The kiosk saw the door open. It records when it is shut again.')
      .waitFor();
    // The simulated door did open, and the service recorded who opened it and the outcome.
    expect(cabinet.door(2).closed).toBe(false);
    const [command] = await stack.sql<{ outcome: string; issued_by: string; reason: string }[]>`
      select outcome, issued_by, reason from link_commands where kind = 'open_door'`;
    expect(command).toEqual({
      outcome: 'opened',
      issued_by: operator.email,
      reason: 'customer stuck at the door',
    });
    // The grid follows: door 2 stands open, in the remote open's session.
    await page.getByRole('button', { name: /^2 S.*Open: in use/ }).waitFor();
  });

  it('shows a door opened by hand on the simulator as standing open, live, without a reload', async () => {
    await page.goto(`${stack.url}/ops/stations/${code}`);
    const door3 = page.getByRole('button', { name: /^3 M/ });
    await page.getByRole('button', { name: /^3 M.*Free/ }).waitFor();
    // Only the operations stream may bring the news: from here the page's own re-reads of
    // the station fail (as on a dropped network), and the page is never loaded again.
    const detail = `/ops/v1/stations/${encodeURIComponent(code)}`;
    let blocked = 0;
    await page.route(
      (url) => url.pathname === detail,
      (route) => {
        blocked += 1;
        return route.abort();
      },
    );
    await page.evaluate(() => {
      (window as unknown as { sameDocument: boolean }).sameDocument = true;
    });
    // Wait until the page has tried (and failed) a re-read, so it is known to be cut off.
    await waitFor(() => blocked > 0, 20_000);
    expect(await door3.textContent()).toContain('Free');

    // The moment the cell first says so, taken in the page as the DOM changes.
    await page.evaluate(() => {
      const w = window as unknown as { shownAt?: number };
      const says = () =>
        [...document.querySelectorAll('button.door')].some(
          (b) =>
            b.querySelector('.door-number')?.textContent === '3' &&
            b.textContent?.includes('Standing open now'),
        );
      new MutationObserver((_, observer) => {
        if (says()) {
          w.shownAt = Date.now();
          observer.disconnect();
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    const openedAt = Date.now();
    cabinet.openDoor(3); // by hand: no door session, nobody at the screen
    const shownAt = await page.waitForFunction(
      () => (window as unknown as { shownAt?: number }).shownAt ?? false,
      undefined,
      { timeout: 20_000 },
    );
    const latency = Number(await shownAt.jsonValue()) - openedAt;
    console.log(
      `console live door state: simulator door 3 opened → shown on the station page in ${latency} ms`,
    );
    await door3.getByText('Standing open now').waitFor();
    // The "needs a look" list names it too, and it is still the same document.
    await page
      .getByRole('region', { name: 'Needs a look' })
      .getByRole('button', { name: 'Door 3' })
      .waitFor();
    expect(
      await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument),
    ).toBe(true);
    expect(cabinet.door(3).closed).toBe(false);
    await page.unrouteAll();
  });
});
