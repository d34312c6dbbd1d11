import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestStack } from '../../test/harness';
import { opsClient, PASSWORD, secretOf, signedInOperator, testClock } from '../../test/opsClient';
import { requireRecentSecondFactor } from '../opsApi/auth';
import { createOperator } from './accounts';
import { cliActor } from './audit';
import { totpCode } from './totp';
import type { Context } from 'koa';

let stack: TestStack;
const clock = testClock();
const IDLE_MINUTES = 30;
const ABSOLUTE_HOURS = 12;

beforeAll(async () => {
  stack = await startTestServer({
    clock: clock.now,
    opsSessionIdleMinutes: IDLE_MINUTES,
    opsSessionAbsoluteHours: ABSOLUTE_HOURS,
  });
});
afterAll(() => stack.close());

async function auditRows(where: { actor?: string; action?: string }) {
  return stack.sql<
    {
      actor: string;
      role: string;
      action: string;
      outcome: string;
      reason: string | null;
      target: string | null;
      correlation_id: string;
    }[]
  >`
    select actor, role, action, outcome, reason, target, correlation_id from audit_log
     where ${where.actor ? stack.sql`actor = ${where.actor}` : stack.sql`true`}
       and ${where.action ? stack.sql`action = ${where.action}` : stack.sql`true`}
     order by id`;
}

describe('operator accounts', () => {
  it('prints a set-up link once; the password is kept as argon2id and the link dies after use', async () => {
    const email = 'Drita.Admin@Ops.Example';
    const issued = await createOperator(stack.sql, cliActor(), { email, role: 'admin' }, stack.url);
    expect(issued.operator).toMatchObject({
      email: 'drita.admin@ops.example',
      role: 'admin',
      set_up: false,
    });
    expect(issued.setup_link).toBe(`${stack.url}/ops/setup#token=${issued.setup_token}`);
    const [stored] =
      await stack.sql`select * from operators where email = 'drita.admin@ops.example'`;
    expect(JSON.stringify(stored)).not.toContain(issued.setup_token);

    const client = opsClient(stack.url);
    const short = await client.post('/ops/v1/setup', {
      token: issued.setup_token,
      password: 'short',
    });
    expect(short.status).toBe(422);
    expect(
      await client.post('/ops/v1/setup', { token: issued.setup_token, password: PASSWORD }),
    ).toMatchObject({ status: 204 });
    const again = await client.post('/ops/v1/setup', {
      token: issued.setup_token,
      password: PASSWORD,
    });
    expect(again.status).toBe(401);
    const [row] = await stack.sql<{ password_hash: string }[]>`
      select password_hash from operators where email = 'drita.admin@ops.example'`;
    expect(row!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row!.password_hash).not.toContain(PASSWORD);
  });

  it('refuses a technician without stations and a station for another role', async () => {
    await expect(
      createOperator(
        stack.sql,
        cliActor(),
        { email: 't@x.example', role: 'technician' },
        stack.url,
      ),
    ).rejects.toThrow(/at least one station/);
    const { station } = await stack.scene('1:S');
    await expect(
      createOperator(
        stack.sql,
        cliActor(),
        { email: 's@x.example', role: 'support', stations: [station.code] },
        stack.url,
      ),
    ).rejects.toThrow(/Only technicians/);
  });
});

describe('signing in', () => {
  it('answers an unknown e-mail exactly as a wrong password, and audits both', async () => {
    const known = await signedInOperator(stack, clock, 'support');
    const client = opsClient(stack.url);
    const wrong = await client.post('/ops/v1/session', {
      email: known.email,
      password: 'not the password',
    });
    const unknown = await client.post('/ops/v1/session', {
      email: 'nobody@ops.example',
      password: 'not the password',
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const strip = (b: Record<string, unknown>) => ({ ...b, correlation_id: undefined });
    expect(strip(wrong.body)).toEqual(strip(unknown.body));
    expect(wrong.body.code).toBe('invalid_credentials');
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await auditRows({ actor: 'nobody@ops.example' })).toEqual([
      expect.objectContaining({ action: 'session.login', outcome: 'failed', role: 'anonymous' }),
    ]);
    expect(
      (await auditRows({ actor: known.email, action: 'session.login' })).map((r) => r.outcome),
    ).toEqual(['ok', 'failed']);
  });

  it('gives a role that can open a door no session until its second factor is set up and entered', async () => {
    const email = 'ops.totp@ops.example';
    const issued = await createOperator(
      stack.sql,
      cliActor(),
      { email, role: 'operations' },
      stack.url,
    );
    const client = opsClient(stack.url);
    await client.post('/ops/v1/setup', { token: issued.setup_token, password: PASSWORD });
    const first = await client.post('/ops/v1/session', { email, password: PASSWORD });
    expect(first.status).toBe(200);
    expect(first.body.stage).toBe('second_factor_setup');
    expect(first.body.otpauth_uri).toMatch(
      /^otpauth:\/\/totp\/Parcel%20Locker:ops\.totp%40ops\.example\?.*secret=[A-Z2-7]+/,
    );
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    // Half signed in: nothing but the second factor.
    for (const path of ['/ops/v1/session', '/ops/v1/stations', '/ops/v1/alerts']) {
      const refused = await client.get(path);
      expect(refused.status, path).toBe(401);
      expect(refused.body.code).toBe('second_factor_required');
    }
    const secret = secretOf(first.body.otpauth_uri);
    const [stored] = await stack.sql<
      { totp_pending_secret: string }[]
    >`select totp_pending_secret from operators where email = ${email}`;
    expect(stored!.totp_pending_secret).not.toContain(secret);
    expect((await client.post('/ops/v1/session/second-factor', { code: '000000' })).status).toBe(
      401,
    );
    const done = await client.post('/ops/v1/session/second-factor', {
      code: totpCode(secret, clock.now()),
    });
    expect(done.status).toBe(200);
    expect(done.body.stage).toBe('complete');
    expect(done.body.recovery_codes).toHaveLength(10);
    expect((await client.get('/ops/v1/session')).body.operator).toMatchObject({
      email,
      role: 'operations',
      second_factor_enrolled: true,
    });
    clock.advance(30_000);

    // The next sign-in asks for the code; the same code is never accepted twice.
    const next = opsClient(stack.url);
    expect((await next.post('/ops/v1/session', { email, password: PASSWORD })).body).toEqual({
      stage: 'second_factor',
    });
    const code = totpCode(secret, clock.now());
    expect((await next.post('/ops/v1/session/second-factor', { code })).status).toBe(200);
    const replay = opsClient(stack.url);
    await replay.post('/ops/v1/session', { email, password: PASSWORD });
    expect((await replay.post('/ops/v1/session/second-factor', { code })).status).toBe(401);
    // A recovery code works once.
    const recovery = done.body.recovery_codes[0] as string;
    expect(
      (await replay.post('/ops/v1/session/second-factor', { recovery_code: recovery })).status,
    ).toBe(200);
    const third = opsClient(stack.url);
    await third.post('/ops/v1/session', { email, password: PASSWORD });
    expect(
      (await third.post('/ops/v1/session/second-factor', { recovery_code: recovery })).status,
    ).toBe(401);
    const [codes] = await stack.sql<{ n: number }[]>`
      select count(*)::int as n from operator_recovery_codes c join operators o on o.id = c.operator_id
       where o.email = ${email} and c.code_hash = ${Buffer.from(recovery)}`;
    expect(codes!.n).toBe(0);
    clock.advance(30_000);
  });

  it('signs support in with the password alone (it can open nothing)', async () => {
    const support = await signedInOperator(stack, clock, 'support');
    expect(support.secret).toBeUndefined();
    expect((await support.client.get('/ops/v1/session')).status).toBe(200);
  });

  it('throttles sign-in per account, refused attempts counted, and audits the refusal', async () => {
    const target = await signedInOperator(stack, clock, 'support');
    const client = opsClient(stack.url);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push(
        (await client.post('/ops/v1/session', { email: target.email, password: `guess ${i}` }))
          .status,
      );
    }
    // The first sign-in (made by signedInOperator) counts too.
    expect(statuses.slice(0, 9)).toEqual(Array(9).fill(401));
    expect(statuses.slice(9)).toEqual([429, 429]);
    const limited = await client.post('/ops/v1/session', {
      email: target.email,
      password: PASSWORD,
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await auditRows({ actor: target.email, action: 'session.login' })).toContainEqual(
      expect.objectContaining({ outcome: 'refused', reason: 'too many attempts' }),
    );
  });

  it('throttles sign-in per address across accounts', async () => {
    // 50 per 15 minutes per address; earlier tests of this file used some already.
    const client = opsClient(stack.url);
    let status = 0;
    let tries = 0;
    while (status !== 429 && tries < 60) {
      tries += 1;
      status = (
        await client.post('/ops/v1/session', { email: `spray${tries}@ops.example`, password: 'x' })
      ).status;
    }
    expect(status).toBe(429);
    expect(tries).toBeLessThanOrEqual(50);
    await stack.sql`delete from rate_limit_windows where bucket = 'ops_login'`;
  });
});

describe('sessions', () => {
  it('ends a session left idle past the idle limit', async () => {
    const op = await signedInOperator(stack, clock, 'support');
    clock.advance((IDLE_MINUTES - 1) * 60_000);
    expect((await op.client.get('/ops/v1/session')).status).toBe(200);
    clock.advance((IDLE_MINUTES - 1) * 60_000); // activity above kept it alive
    expect((await op.client.get('/ops/v1/session')).status).toBe(200);
    clock.advance(IDLE_MINUTES * 60_000);
    const expired = await op.client.get('/ops/v1/session');
    expect(expired.status).toBe(401);
    expect(expired.body.detail).toMatch(/expired/);
    clock.advance(-IDLE_MINUTES * 60_000);
    // Ended for good, even if the clock were to say otherwise.
    expect((await op.client.get('/ops/v1/session')).status).toBe(401);
  });

  it('ends a session at its absolute limit however active it is', async () => {
    const op = await signedInOperator(stack, clock, 'support');
    const start = clock.now().getTime();
    while (clock.now().getTime() - start < ABSOLUTE_HOURS * 3600_000 - 20 * 60_000) {
      clock.advance(20 * 60_000);
      expect((await op.client.get('/ops/v1/session')).status).toBe(200);
    }
    clock.advance(20 * 60_000);
    expect((await op.client.get('/ops/v1/session')).status).toBe(401);
  });

  it('logs out here, and everywhere', async () => {
    const op = await signedInOperator(stack, clock, 'support');
    const second = opsClient(stack.url);
    await second.post('/ops/v1/session', { email: op.email, password: PASSWORD });
    const third = opsClient(stack.url);
    await third.post('/ops/v1/session', { email: op.email, password: PASSWORD });
    const stolen = third.cookie();
    expect((await third.delete('/ops/v1/session')).status).toBe(204);
    expect(third.cookie()).toBeUndefined();
    third.setCookie(stolen);
    expect((await third.get('/ops/v1/session')).status).toBe(401);
    expect((await second.get('/ops/v1/session')).status).toBe(200);
    expect((await op.client.delete('/ops/v1/sessions')).status).toBe(204);
    expect((await second.get('/ops/v1/session')).status).toBe(401);
    expect((await auditRows({ actor: op.email })).map((r) => r.action)).toEqual(
      expect.arrayContaining(['session.logout', 'session.logout_everywhere']),
    );
  });

  it('stores only a hash of the session token', async () => {
    const op = await signedInOperator(stack, clock, 'support');
    const token = op.client.cookie()!.split('=')[1]!;
    const rows = await stack.sql`select token_hash from operator_sessions`;
    expect(rows.some((r) => Buffer.from(r.token_hash).toString('base64url') === token)).toBe(false);
    expect(JSON.stringify(rows)).not.toContain(token);
  });
});

describe('CSRF', () => {
  it('refuses unsafe requests from another origin or with none, and changes nothing', async () => {
    const op = await signedInOperator(stack, clock, 'admin');
    for (const origin of ['https://evil.example', null, 'null']) {
      const client = opsClient(stack.url, { origin });
      client.setCookie(op.client.cookie());
      const answer = await client.post('/ops/v1/couriers', { number: 'CSRF-1', name: 'Nobody' });
      expect(answer.status, String(origin)).toBe(403);
      expect(answer.body.code).toBe('origin_refused');
      const login = await client.post('/ops/v1/session', { email: op.email, password: PASSWORD });
      expect(login.status).toBe(403);
    }
    const [row] = await stack.sql`select 1 from couriers where number = 'CSRF-1'`;
    expect(row).toBeUndefined();
    // The same request from the console's own origin goes through.
    expect(
      (await op.client.post('/ops/v1/couriers', { number: 'CSRF-1', name: 'Somebody' })).status,
    ).toBe(201);
  });
});

describe('step-up', () => {
  it('asks for the second factor again after 5 minutes', async () => {
    const op = await signedInOperator(stack, clock, 'technician', [
      (await stack.scene('1:S')).station.code,
    ]);
    const session = async () => {
      const [row] = await stack.sql<{ second_factor_at: Date | null }[]>`
        select s.second_factor_at from operator_sessions s join operators o on o.id = s.operator_id
         where o.email = ${op.email} and s.ended_at is null and s.stage = 'complete'`;
      return row!;
    };
    const check = async () => {
      const c = { state: { session: await session(), opsNow: clock.now() } } as unknown as Context;
      return () => requireRecentSecondFactor(c);
    };
    clock.advance(6 * 60_000);
    expect(await check()).toThrow(/within 5 minutes/);
    expect((await op.client.post('/ops/v1/session/step-up', { code: '123456' })).status).toBe(401);
    expect((await op.client.post('/ops/v1/session/step-up', { code: op.code() })).status).toBe(204);
    expect(await check()).not.toThrow();
    clock.advance(5 * 60_000 + 1000);
    expect(await check()).toThrow(/within 5 minutes/);
  });
});
