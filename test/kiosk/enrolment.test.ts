import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EnrolmentError,
  KioskCore,
  RENDERER_DIR,
  enrol,
  hashTechnicianPin,
  loadKioskConfig,
  readCredentials,
  startBrowserHost,
} from '@locker/kiosk';
import { browserWithCameraOn } from './fakeCamera';
import { launchBrowser, typeOnKeypad } from './fixture';
import { client, useTestServer } from '@locker/server/testing';
import { createTerminal, newEnrolmentCode } from '../../server/src/opsApi/terminals';
import { cliActor } from '../../server/src/operators/audit';

const stack = useTestServer();

function kioskFolder(extra: object = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kiosk-enrol-'));
  const configFile = path.join(dir, 'kiosk.json');
  // As install.sh writes it: no token in the configuration, readable by the kiosk's group.
  writeFileSync(
    configFile,
    JSON.stringify({
      serverUrl: stack.url,
      credentialsFile: 'credentials.json',
      lock: { kind: 'simulator', boards: 1 },
      dataDir: 'data',
      ...extra,
    }),
    { mode: 0o640 },
  );
  return { configFile, credentials: path.join(dir, 'credentials.json') };
}

async function newTerminal() {
  const { station } = await stack.scene('1:S');
  const created = await createTerminal(
    stack.sql,
    cliActor(),
    station.code,
    stack.server.config.pickupCodeSecret,
  );
  return { station, created };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('enrolment was not refused');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(EnrolmentError);
      return (error as Error).message;
    },
  );

describe('enrolment: an operator creates, the kiosk enrols, the first heartbeat gets in', () => {
  it('exchanges the code for a token of its own, stored 0600, bound to the station', async () => {
    const { station, created } = await newTerminal();
    const code = created.enrolment.code;
    expect(code).toMatch(/^\d{4}-\d{4}-\d{2}$/);
    expect(created.enrolment.qr_svg).toMatch(/^<svg/);
    expect(Date.parse(created.enrolment.expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    // Only the HMAC is kept.
    const [kept] = await stack.sql<{ n: number }[]>`
      select count(*)::int as n from terminal_enrolment_codes
       where terminal_id = ${created.terminal.id} and code_hash::text like ${'%' + code.replace(/-/g, '') + '%'}`;
    expect(kept!.n).toBe(0);

    const kiosk = kioskFolder();
    expect(() => loadKioskConfig(kiosk.configFile)).toThrow(/not enrolled yet/);
    // Typed with spaces, as a technician might.
    const enrolled = await enrol(stack.url, code.replace(/-/g, ' '), kiosk.credentials);
    expect(enrolled.station).toEqual({ code: station.code, name: station.name });
    expect(enrolled.terminal_id).toBe(created.terminal.id);
    expect(statSync(kiosk.credentials).mode & 0o777).toBe(0o600);
    expect(readCredentials(kiosk.credentials)).toMatchObject({
      token: enrolled.token,
      station: { code: station.code },
    });

    const config = loadKioskConfig(kiosk.configFile);
    expect(config.deviceToken).toBe(enrolled.token);
    const heartbeat = await client(stack.url, config.deviceToken).post('/terminal/v1/heartbeat', {
      appVersion: 'kiosk-enrolled',
    });
    expect(heartbeat.status).toBe(200);
    expect(heartbeat.body.station_code).toBe(station.code);
    // The token printed at creation is replaced by the kiosk's own.
    await expect
      .poll(async () => (await client(stack.url, created.token).get('/terminal/v1/cabinet')).status)
      .toBe(401);
  });

  it('refuses a code used once already, and a wrong one, each with its sentence', async () => {
    const { created } = await newTerminal();
    const first = kioskFolder();
    await enrol(stack.url, created.enrolment.code, first.credentials);
    const second = kioskFolder();
    expect(await refusal(enrol(stack.url, created.enrolment.code, second.credentials))).toMatch(
      /used already; a code works once/,
    );
    const wrong = created.enrolment.code.replace(/^\d/, (d) => String((Number(d) + 1) % 10));
    expect(await refusal(enrol(stack.url, wrong, second.credentials))).toMatch(/not known/);
    expect(await refusal(enrol(stack.url, '12345', second.credentials))).toMatch(/ten digits/);
    expect(() => statSync(second.credentials)).toThrow();
  });

  it('refuses an expired code, and a new code for the terminal replaces the old one', async () => {
    const { created } = await newTerminal();
    await stack.sql`
      update terminal_enrolment_codes set expires_at = now() - interval '1 second'
       where terminal_id = ${created.terminal.id}`;
    const kiosk = kioskFolder();
    expect(await refusal(enrol(stack.url, created.enrolment.code, kiosk.credentials))).toMatch(
      /expired/,
    );
    const fresh = await newEnrolmentCode(
      stack.sql,
      cliActor(),
      created.terminal.id,
      stack.server.config.pickupCodeSecret,
    );
    const enrolled = await enrol(stack.url, fresh.enrolment.code, kiosk.credentials);
    expect(
      (await client(stack.url, enrolled.token).post('/terminal/v1/heartbeat', {})).status,
    ).toBe(200);
  });

  it('limits attempts per address, refused ones included', async () => {
    const kiosk = kioskFolder();
    // 20 per 15 minutes per address; earlier tests of this file used some already.
    let message = '';
    for (let i = 0; i < 25 && !/Too many attempts/.test(message); i++) {
      message = await refusal(enrol(stack.url, '0000-0000-00', kiosk.credentials));
    }
    expect(message).toMatch(/Too many attempts from this kiosk; try again in \d+ s/);
    // Even the right code waits out the window.
    const { created } = await newTerminal();
    expect(await refusal(enrol(stack.url, created.enrolment.code, kiosk.credentials))).toMatch(
      /Too many attempts/,
    );
  });
});

const PIN = '482913';

/**
 * A new kiosk, not enrolled, its screen open at the enrolment screen of its service menu.
 * Each step waits for the screen the previous one leads to: the chord is pressed once the
 * out-of-service screen is drawn (before that, nothing listens for it yet).
 */
async function kioskAtEnrolment(
  browser: Browser,
  terminal?: Awaited<ReturnType<typeof newTerminal>>,
) {
  // The limit test above used up this address's attempts.
  if (!terminal) await stack.sql`delete from rate_limit_windows`;
  const { station, created } = terminal ?? (await newTerminal());
  const kiosk = kioskFolder({
    technicianPinHash: hashTechnicianPin(PIN),
    heartbeatIntervalSeconds: 1,
  });
  const core = await KioskCore.start(loadKioskConfig(kiosk.configFile, { unenrolled: 'allow' }), {
    stdout: false,
  });
  const host = await startBrowserHost(core, RENDERER_DIR);
  const page = await browser.newPage({ viewport: { width: 1080, height: 1920 } });
  const close = async () => {
    await page.close();
    await host.close();
    await core.stop();
  };
  try {
    await page.goto(`${host.url}?lang=en`);
    // Not enrolled: nothing to send, so out of service, as a refused terminal is.
    await expect.poll(async () => (await core.getState()).condition).toBe('terminal_refused');
    await page.locator('[data-screen="out-of-service"]').waitFor();
    await page.keyboard.press('Control+Alt+KeyS');
    await page.locator('[data-screen="service-pin"]').waitFor();
    await typeOnKeypad(page, PIN);
    await page.locator('.key-primary').click();
    await page.locator('[data-screen="maintenance"]').waitFor();
    await page.getByRole('button', { name: 'Enrol with a code' }).click();
    await page.locator('[data-screen="enrolment"]').waitFor();
  } catch (error) {
    await close();
    throw error;
  }
  return { station, created, kiosk, core, page, close };
}

describe('enrolment on the kiosk screen: the service menu takes the code', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('a new kiosk starts out of service, is enrolled from its service menu, shows its station and heartbeats', async () => {
    const { station, created, kiosk, core, page, close } = await kioskAtEnrolment(browser);
    try {
      // A mistyped code: the service's sentence, nothing stored.
      const wrong = created.enrolment.code.replace(/^\d/, (d) => String((Number(d) + 1) % 10));
      await typeOnKeypad(page, wrong.replace(/-/g, ''));
      await page.locator('.key-primary').click();
      await page.getByText(/not known: check the digits/).waitFor();
      expect(() => statSync(kiosk.credentials)).toThrow();

      await typeOnKeypad(page, created.enrolment.code.replace(/-/g, ''));
      await page.locator('.key-primary').click();
      await page
        .getByText(`Enrolled: this kiosk is station ${station.code} (${station.name}).`)
        .waitFor();
      expect(statSync(kiosk.credentials).mode & 0o777).toBe(0o600);
      // The first heartbeat: the service saw this terminal, and the kiosk is in service.
      await expect.poll(async () => (await core.getState()).condition).toBe('ok');
      const [terminal] = await stack.sql<{ last_heartbeat_at: Date | null }[]>`
        select last_heartbeat_at from terminals where id = ${created.terminal.id}`;
      expect(terminal!.last_heartbeat_at).not.toBeNull();
      expect((await core.getState()).config?.station_code).toBe(station.code);
      // The service menu asks the core for the PIN again: a screen alone cannot enrol.
      expect(await core.enrol('000000', created.enrolment.code)).toEqual({ kind: 'not_allowed' });
    } finally {
      await close();
    }
  });

  it('takes the code from a handheld scanner acting as a keyboard: the QR text typed, then Enter', async () => {
    const { station, created, kiosk, core, page, close } = await kioskAtEnrolment(browser);
    try {
      // What the QR code carries, exactly: the server's SVG encodes the code with its dashes.
      const scanned = created.enrolment.code;
      expect(scanned).toMatch(/^\d{4}-\d{4}-\d{2}$/);
      // A scanner types fast: no pause between its keys.
      await page.keyboard.type(scanned);
      // The separators are not digits: the display holds the ten digits only.
      await expect
        .poll(() => page.locator('.keypad-display').getAttribute('data-value'))
        .toBe(scanned.replace(/-/g, ''));
      await page.keyboard.press('Enter');
      await page
        .getByText(`Enrolled: this kiosk is station ${station.code} (${station.name}).`)
        .waitFor();
      expect(readCredentials(kiosk.credentials)).toMatchObject({ station: { code: station.code } });
      await expect.poll(async () => (await core.getState()).condition).toBe('ok');
      expect((await core.getState()).config?.station_code).toBe(station.code);
    } finally {
      await close();
    }
  });

  it("reads the enrolment QR code with the kiosk's camera, and enrols once", async () => {
    // The camera is chosen at launch: a browser of its own, its fake camera filmed on the
    // QR code of a terminal created here.
    await stack.sql`delete from rate_limit_windows`;
    const { station, created } = await newTerminal();
    const camera = await browserWithCameraOn(created.enrolment.qr_svg, browser);
    try {
      const { kiosk, core, page, close } = await kioskAtEnrolment(camera, { station, created });
      try {
        await page.getByText('Or scan its QR code, or hold it up to the camera.').waitFor();
        // Nothing typed: the camera reads the code, and the kiosk enrols.
        await page
          .getByText(`Enrolled: this kiosk is station ${station.code} (${station.name}).`)
          .waitFor({ timeout: 20_000 });
        expect(readCredentials(kiosk.credentials)).toMatchObject({
          station: { code: station.code },
        });
        await expect.poll(async () => (await core.getState()).condition).toBe('ok');
        // The same code still in view is not sent again (it would be refused as used).
        const [window] = await stack.sql<{ n: number }[]>`
          select coalesce(sum(cardinality(attempts)), 0)::int as n from rate_limit_windows`;
        expect(window!.n).toBe(1);
      } finally {
        await close();
      }
    } finally {
      await camera.close();
    }
  }, 120_000);
});
