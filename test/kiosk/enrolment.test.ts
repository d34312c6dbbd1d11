import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnrolmentError, enrol, loadKioskConfig, readCredentials } from '@locker/kiosk';
import { client, useTestServer } from '@locker/server/testing';
import { createTerminal, newEnrolmentCode } from '../../server/src/opsApi/terminals';
import { cliActor } from '../../server/src/operators/audit';

const stack = useTestServer();

function kioskFolder() {
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
