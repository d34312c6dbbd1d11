import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestStack } from '../../test/harness';
import { signedInOperator, testClock } from '../../test/opsClient';
import { runAdmin } from '../admin/run';

let stack: TestStack;
const clock = testClock();

beforeAll(async () => {
  stack = await startTestServer({ clock: clock.now });
});
afterAll(() => stack.close());

async function cli(...args: string[]) {
  let out = '';
  let err = '';
  const code = await runAdmin(args, {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { ...process.env, DATABASE_URL: stack.databaseUrl, USER: 'blerta' },
  });
  return { code, out, err };
}

describe('the audit log', () => {
  it('cannot be changed or emptied, even by the database role the service runs as', async () => {
    const op = await signedInOperator(stack, clock, 'support');
    const [row] = await stack.sql<{ id: string }[]>`
      select id::text from audit_log where actor = ${op.email} order by id limit 1`;
    await expect(
      stack.sql`update audit_log set outcome = 'failed' where id = ${row!.id}`,
    ).rejects.toThrow(/append-only/);
    await expect(stack.sql`delete from audit_log where id = ${row!.id}`).rejects.toThrow(
      /append-only/,
    );
    await expect(stack.sql`truncate audit_log`).rejects.toThrow(/append-only/);
    const [still] = await stack.sql`select outcome from audit_log where id = ${row!.id}`;
    expect(still!.outcome).toBe('ok');
    // No route writes to it either.
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
      const answer = await op.client.raw(method, '/ops/v1/audit');
      expect(answer.status, method).toBe(404);
    }
  });

  it('records who, role, what, on what, why, outcome and the request’s correlation id', async () => {
    const op = await signedInOperator(stack, clock, 'operations');
    const { station } = await stack.scene('1:S');
    const answer = await op.client.post(
      `/ops/v1/stations/${station.code}/doors/1/service`,
      { in_service: false, reason: 'water inside' },
      { 'x-correlation-id': 'corr-door-0001' },
    );
    expect(answer.status).toBe(200);
    const [row] = await stack.sql`
      select actor_id, actor, role, action, target_type, target, reason, outcome, correlation_id, address
        from audit_log where correlation_id = 'corr-door-0001'`;
    expect(row).toEqual({
      actor_id: op.id,
      actor: op.email,
      role: 'operations',
      action: 'door.service_out',
      target_type: 'door',
      target: `${station.code}/1`,
      reason: 'water inside',
      outcome: 'ok',
      correlation_id: 'corr-door-0001',
      address: expect.stringMatching(/127\.0\.0\.1/),
    });
  });

  it('records every CLI action as the OS user, failures included', async () => {
    const created = await cli(
      'station',
      'create',
      '--code',
      'AUD1',
      '--name',
      'Audit',
      '--doors',
      '1:S,2:M',
    );
    expect(created.code, created.err).toBe(0);
    expect(
      (
        await cli(
          'door',
          'set',
          '--station',
          'AUD1',
          '--position',
          '2',
          '--service',
          'out',
          '--reason',
          'wet',
        )
      ).code,
    ).toBe(0);
    const terminal = JSON.parse((await cli('terminal', 'create', '--station', 'AUD1')).out) as {
      id: string;
      token: string;
    };
    expect(
      (await cli('terminal', 'set-status', '--id', terminal.id, '--status', 'disabled')).code,
    ).toBe(0);
    expect((await cli('terminal', 'revoke', '--id', terminal.id)).code).toBe(0);
    expect((await cli('courier', 'create', '--number', 'AUD-C', '--name', 'Courier')).code).toBe(0);
    expect((await cli('courier', 'deactivate', '--number', 'AUD-C')).code).toBe(0);
    const org = JSON.parse((await cli('org', 'create', '--name', 'Audit Shop')).out) as {
      id: string;
      apiKey: string;
    };
    expect((await cli('org', 'rotate-key', '--org', org.id)).code).toBe(0);
    const operator = await cli(
      'operator',
      'create',
      '--email',
      'new.tech@ops.example',
      '--role',
      'technician',
      '--station',
      'AUD1',
    );
    expect(operator.code, operator.err).toBe(0);
    expect(JSON.parse(operator.out).operator.stations).toEqual(['AUD1']);
    const failed = await cli(
      'station',
      'create',
      '--code',
      'AUD1',
      '--name',
      'Again',
      '--doors',
      '1:S',
    );
    expect(failed.code).toBe(1);
    const rows = await stack.sql<{ action: string; outcome: string; role: string }[]>`
      select action, outcome, role from audit_log where actor = 'cli:blerta' order by id`;
    expect(rows.map((r) => [r.action, r.outcome])).toEqual([
      ['station.create', 'ok'],
      ['door.service_out', 'ok'],
      ['terminal.create', 'ok'],
      ['terminal.set_status', 'ok'],
      ['terminal.revoke', 'ok'],
      ['courier.create', 'ok'],
      ['courier.deactivate', 'ok'],
      ['organization.create', 'ok'],
      ['api_key.rotate', 'ok'],
      ['operator.create', 'ok'],
      ['station.create', 'failed'],
    ]);
    expect(new Set(rows.map((r) => r.role))).toEqual(new Set(['cli']));
    const text = JSON.stringify(await stack.sql`select * from audit_log`);
    expect(text).not.toContain(terminal.token);
    expect(text).not.toContain(org.apiKey);
    const listed = JSON.parse(
      (await cli('audit', 'list', '--actor', 'cli:blerta', '--action', 'terminal')).out,
    ) as {
      entries: { action: string }[];
    };
    expect(listed.entries.map((e) => e.action)).toEqual([
      'terminal.revoke',
      'terminal.set_status',
      'terminal.create',
    ]);
  });
});
