import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliActor,
  createOperator,
  opsClient,
  PASSWORD,
  totpCode,
  waitFor,
} from '@locker/server/testing';
import { consoleStack, DESK, operatorPage, type ConsoleStack } from './fixture';
import { DRITA_PHONE, networkScene } from './scene';

// The operator console in Debian's Chromium against the real server and PostgreSQL.

let c: ConsoleStack;
let scene: Awaited<ReturnType<typeof networkScene>>;
beforeAll(async () => {
  c = await consoleStack();
  scene = await networkScene(c.stack);
});
afterAll(async () => c?.stop());

describe('signing in', () => {
  it('sets a password from the link, enrols TOTP from the QR code, shows the recovery codes once, and signs out everywhere', async () => {
    const email = `night.${Date.now()}@ops.example`;
    const issued = await createOperator(
      c.stack.sql,
      cliActor(),
      { email, role: 'operations' },
      c.stack.url,
    );
    const context = await c.browser.newContext({ viewport: DESK });
    const page = await context.newPage();
    await page.goto(issued.setup_link);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('The same password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
    // The token left the address bar once used.
    expect(page.url()).not.toContain('token');
    await page.getByRole('link', { name: 'Go to sign-in' }).click();

    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Set up your authenticator' }).waitFor();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    const secret = (await page.getByTestId('totp-secret').textContent())!.replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    // A wrong code is refused in words, and the page stays.
    await page.getByLabel('6-digit code from your authenticator app').fill('000000');
    await page.getByRole('button', { name: 'Confirm and sign in' }).click();
    await page.getByText('E-mail, password or code not accepted').waitFor();
    await page
      .getByLabel('6-digit code from your authenticator app')
      .fill(totpCode(secret, c.clock.now()));
    c.clock.advance(30_000);
    await page.getByRole('button', { name: 'Confirm and sign in' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    const codes = await page
      .getByRole('list', { name: 'Your recovery codes' })
      .getByRole('listitem')
      .allTextContents();
    expect(codes).toHaveLength(10);
    const onward = page.getByRole('button', { name: 'Continue to the console' });
    expect(await onward.isDisabled()).toBe(true);
    await page.getByLabel('I have saved my recovery codes').check();
    await onward.click();
    await page.getByRole('heading', { name: 'What needs attention now' }).waitFor();
    // The session is an HttpOnly cookie: no script on the page can read it.
    expect(await page.evaluate(() => document.cookie)).not.toContain('locker_ops');

    // Another session of the same operator (a second browser, through the API).
    const elsewhere = opsClient(c.stack.url);
    await elsewhere.post('/ops/v1/session', { email, password: PASSWORD });
    const second = await elsewhere.post('/ops/v1/session/second-factor', {
      code: totpCode(secret, c.clock.now()),
    });
    c.clock.advance(30_000);
    expect(second.status).toBe(200);
    await page.getByRole('button', { name: `${email} · Operations` }).click();
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByText('You are signed out on every device.').waitFor();
    expect((await elsewhere.get('/ops/v1/session')).status).toBe(401);

    // Back in with the authenticator: no set-up the second time.
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Second factor' }).waitFor();
    await page
      .getByLabel('6-digit code from your authenticator app')
      .fill(totpCode(secret, c.clock.now()));
    c.clock.advance(30_000);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'What needs attention now' }).waitFor();
    await context.close();
  });
});

describe('alerts', () => {
  it('shows an alert raised on the server without a reload, behind a "new" bar, and acknowledges it with a note by keyboard', async () => {
    const { page, context, operator } = await operatorPage(c, 'operations');
    await page.goto(`${c.stack.url}/ops/`);
    await page.getByRole('table').getByText('Terminal offline').waitFor();
    await page.locator('.live-ok').waitFor();
    const rowsBefore = await page.locator('.inbox tbody tr').count();
    const terminal = await c.stack.sql<{ id: string }[]>`
      select id from terminals where station_id = ${scene.quiet.id}`;
    await c.stack.sql`insert into alerts (kind, terminal_id, station_id, message)
                      values ('pickup_brute_force', ${terminal[0]!.id}, ${scene.quiet.id}, 'codes guessed')`;
    // It waits behind the bar: the rows do not move under the operator.
    const bar = page.getByRole('button', { name: /1 new alert/ });
    await bar.waitFor();
    expect(await page.locator('.inbox tbody tr').count()).toBe(rowsBefore);
    await page.keyboard.press('n');
    const row = page.locator('.inbox tbody tr', { hasText: 'Pickup codes guessed' });
    await row.waitFor();
    expect(await row.textContent()).toContain('TIR-101');
    // Most severe first: the new critical alert sits above the warning.
    const kinds = await page.locator('.inbox tbody .row-open').allTextContents();
    expect(kinds.indexOf('Pickup codes guessed')).toBeLessThan(kinds.indexOf('Door fault'));

    await row.getByRole('button', { name: 'Pickup codes guessed' }).focus();
    await page.keyboard.press('a');
    const note = page.getByLabel('Note (optional)');
    await expect.poll(() => note.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('calling the station owner');
    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await row.getByText(`Acknowledged by ${operator.email}`).waitFor();
    const [stored] = await c.stack.sql<{ status: string; acknowledge_note: string }[]>`
      select status, acknowledge_note from alerts where kind = 'pickup_brute_force' and station_id = ${scene.quiet.id}`;
    expect(stored).toEqual({
      status: 'acknowledged',
      acknowledge_note: 'calling the station owner',
    });
    await context.close();
  });
});

describe('parcels', () => {
  it('finds a parcel by the last digits of the phone, says so, and shows support the number masked', async () => {
    const { page, context } = await operatorPage(c, 'support');
    await page.goto(`${c.stack.url}/ops/parcels`);
    await page
      .getByLabel(/Tracking number, order reference, phone digits/)
      .fill(DRITA_PHONE.slice(-4));
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByText('1 parcel, matched by phone digits.').waitFor();
    const row = page.locator('tbody tr', { hasText: scene.drita.shipment.tracking_number });
    await row.waitFor();
    const text = (await row.textContent())!;
    expect(text).toContain('Drita Gashi');
    expect(text).not.toContain(DRITA_PHONE.slice(-6));
    expect(text).toContain('456');
    await row.getByRole('button', { name: scene.drita.shipment.tracking_number }).click();
    const panel = page.getByRole('complementary', {
      name: `Parcel ${scene.drita.shipment.tracking_number}`,
    });
    await panel.getByRole('heading', { name: 'History' }).waitFor();
    expect(await panel.locator('.timeline li').count()).toBeGreaterThanOrEqual(2);
    await context.close();
  });
});

describe('roles', () => {
  it('leaves off support what it may not do, and the server refuses it anyway', async () => {
    const { page, context } = await operatorPage(c, 'support');
    await page.goto(`${c.stack.url}/ops/stations/PRN-022`);
    await page.getByRole('button', { name: /^1 S/ }).click();
    await page.getByRole('heading', { name: 'Door 1 at PRN-022' }).waitFor();
    await page.getByRole('heading', { name: 'Door history' }).waitFor();
    expect(await page.getByRole('button', { name: /Open door/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Take out of service' }).count()).toBe(0);
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual([
      'Now',
      'Alerts',
      'Fleet',
      'Parcels',
    ]);
    await page.goto(`${c.stack.url}/ops/`);
    await page.getByRole('button', { name: 'Door fault' }).click();
    await page.getByRole('heading', { name: 'Door fault', level: 2 }).waitFor();
    expect(await page.getByRole('button', { name: 'Acknowledge' }).count()).toBe(0);
    // What the screen leaves off, the server refuses: the same request from this page.
    const refused = await page.evaluate(async () => {
      const answer = await fetch('/ops/v1/stations/PRN-022/doors/1/service', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ in_service: false, reason: 'trying my luck' }),
      });
      return { status: answer.status, body: await answer.json() };
    });
    expect(refused).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    await context.close();
  });

  it("tells a technician a station outside their own is not theirs, and leaves theirs' doors to them", async () => {
    const { page, context } = await operatorPage(c, 'technician', { stations: ['TIR-101'] });
    await page.goto(`${c.stack.url}/ops/stations/PRN-022`);
    await page.getByRole('alert').getByText('Your role may not do this.').waitFor();
    await page.goto(`${c.stack.url}/ops/stations/TIR-101`);
    await page.getByRole('button', { name: /^2 S/ }).click();
    await page.getByRole('button', { name: 'Open door 2' }).waitFor();
    await page.getByRole('button', { name: 'Take out of service' }).waitFor();
    await context.close();
  });
});

describe('a door taken out of service', () => {
  it('asks the reason, and the grid and the audit log say who and why', async () => {
    const { page, context, operator } = await operatorPage(c, 'operations');
    await page.goto(`${c.stack.url}/ops/stations/TIR-101`);
    await page.getByRole('button', { name: /^3 M/ }).click();
    await page.getByLabel('Reason (kept with the door and in the audit log)').fill('lock sticks');
    await page.getByRole('button', { name: 'Take out of service' }).click();
    await page.getByRole('button', { name: /^3 M.*Out of service/ }).waitFor();
    await waitFor(async () => {
      const [row] = await c.stack.sql<{ actor: string; reason: string }[]>`
        select actor, reason from audit_log where action = 'door.service_out' and target = 'TIR-101/3' and outcome = 'ok'`;
      return row;
    }).then((row) => expect(row).toEqual({ actor: operator.email, reason: 'lock sticks' }));
    await context.close();
  });
});

describe('a remote open', () => {
  it('names the door and station in full, needs a reason, and refuses a wrong authenticator code before anything is sent', async () => {
    const { page, context, operator } = await operatorPage(c, 'operations');
    await page.goto(`${c.stack.url}/ops/stations/TIR-101`);
    await page.getByRole('button', { name: /^4 L/ }).click();
    await page.getByRole('heading', { name: 'Open door 4 at TIR-101 Tirana Blloku?' }).waitFor();
    const open = page.getByRole('button', { name: 'Open door 4' });
    // No reason: the browser holds the form back.
    await page.getByLabel('Authenticator code').fill('123456');
    await open.click();
    expect(
      await page
        .getByLabel('Reason', { exact: true })
        .evaluate((el) => (el as HTMLTextAreaElement).validity.valueMissing),
    ).toBe(true);
    await page.getByLabel('Reason', { exact: true }).fill('courier locked out');
    await page.getByLabel('Authenticator code').fill('000000');
    await open.click();
    await page.getByRole('alert').getByText('E-mail, password or code not accepted').waitFor();
    const stepUps = await c.stack.sql<{ outcome: string }[]>`
      select outcome from audit_log where action = 'session.step_up' and actor = ${operator.email}`;
    expect(stepUps.map((r) => r.outcome)).toEqual(['failed']);
    const opens = await c.stack.sql`select 1 from audit_log where action like 'door.remote_open%'`;
    expect(opens).toHaveLength(0);
    await context.close();
  });
});
