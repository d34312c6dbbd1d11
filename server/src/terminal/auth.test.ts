import { ProblemSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { revokeTerminal, setTerminalStatus } from '../admin/commands';
import { client, useTestServer } from '../../test/harness';

const stack = useTestServer();

const SAME_ID = { 'X-Correlation-ID': 'support-ticket-0001' };

/** Everything a caller can observe of an answer but the Date header. */
function observable(answer: { status: number; headers: Headers; text: string }) {
  const headers = [...answer.headers.entries()].filter(([name]) => name !== 'date');
  return { status: answer.status, headers, text: answer.text };
}

describe('device-token authentication', () => {
  it('answers one byte-identical 401 for missing, malformed, unknown, revoked, disabled and offline credentials', async () => {
    const station = await stack.station();
    const revoked = await stack.terminal(station.code);
    await revokeTerminal(stack.sql, revoked.id);
    const disabled = await stack.terminal(station.code);
    await setTerminalStatus(stack.sql, disabled.id, 'disabled');
    const offline = await stack.terminal(station.code);
    await setTerminalStatus(stack.sql, offline.id, 'offline');

    const attempts = [
      client(stack.url).get('/terminal/v1/cabinet', SAME_ID),
      client(stack.url).get('/terminal/v1/cabinet', { ...SAME_ID, authorization: 'Basic abc' }),
      client(stack.url, 'tdev_unknown-token').get('/terminal/v1/cabinet', SAME_ID),
      revoked.api.get('/terminal/v1/cabinet', SAME_ID),
      disabled.api.get('/terminal/v1/cabinet', SAME_ID),
      offline.api.get('/terminal/v1/cabinet', SAME_ID),
    ];
    const answers = (await Promise.all(attempts)).map(observable);
    expect(answers[0]?.status).toBe(401);
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    const body = ProblemSchema.parse(JSON.parse(answers[0]!.text));
    expect(body).toMatchObject({
      code: 'unauthorized',
      status: 401,
      correlation_id: 'support-ticket-0001',
    });
  });

  it('refuses every endpoint to a terminal that is not online', async () => {
    const station = await stack.station();
    const t = await stack.terminal(station.code);
    await setTerminalStatus(stack.sql, t.id, 'offline');
    for (const path of [
      '/pickup',
      '/door/confirm',
      '/courier/verify',
      '/deposit',
      '/return',
      '/return/confirm',
    ]) {
      const answer = await t.api.post(`/terminal/v1${path}`, {});
      expect(answer.status, path).toBe(401);
      expect(answer.body.code).toBe('unauthorized');
    }
  });

  it('lets a heartbeat from an offline terminal through and clears the mark', async () => {
    const station = await stack.station();
    const t = await stack.terminal(station.code);
    await setTerminalStatus(stack.sql, t.id, 'offline');
    expect((await t.api.get('/terminal/v1/cabinet')).status).toBe(401);
    expect((await t.api.post('/terminal/v1/heartbeat')).status).toBe(200);
    const [row] = await stack.sql`select status from terminals where id = ${t.id}`;
    expect(row?.status).toBe('online');
    expect((await t.api.get('/terminal/v1/cabinet')).status).toBe(200);
  });

  it('refuses a heartbeat from a disabled or revoked terminal with the same 401', async () => {
    const station = await stack.station();
    const disabled = await stack.terminal(station.code);
    await setTerminalStatus(stack.sql, disabled.id, 'disabled');
    const revoked = await stack.terminal(station.code);
    await revokeTerminal(stack.sql, revoked.id);
    const a = observable(await disabled.api.post('/terminal/v1/heartbeat', undefined, SAME_ID));
    const b = observable(await revoked.api.post('/terminal/v1/heartbeat', undefined, SAME_ID));
    expect(a.status).toBe(401);
    expect(a).toEqual(b);
    const [row] = await stack.sql`select status from terminals where id = ${disabled.id}`;
    expect(row?.status).toBe('disabled');
  });

  it('stores device tokens only as SHA-256 hashes', async () => {
    const station = await stack.station();
    const t = await stack.terminal(station.code);
    const [row] = await stack.sql<
      { token_hash: Buffer }[]
    >`select token_hash from terminals where id = ${t.id}`;
    expect(row?.token_hash.length).toBe(32);
    const dump = JSON.stringify(await stack.sql`select * from terminals`);
    expect(dump).not.toContain(t.token);
  });
});

describe('correlation ids', () => {
  it('echoes a well-formed X-Correlation-ID and replaces a malformed one', async () => {
    const good = await client(stack.url).get('/terminal/v1/cabinet', {
      'X-Correlation-ID': 'abc.DEF_123-x',
    });
    expect(good.headers.get('x-correlation-id')).toBe('abc.DEF_123-x');
    expect(good.body.correlation_id).toBe('abc.DEF_123-x');
    for (const bad of ['short', 'has space in it', 'x'.repeat(65), 'semi;colon-1234']) {
      const answer = await client(stack.url).get('/terminal/v1/cabinet', {
        'X-Correlation-ID': bad,
      });
      const made = answer.headers.get('x-correlation-id');
      expect(made).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.body.correlation_id).toBe(made);
    }
  });

  it('answers unknown paths with a not_found problem', async () => {
    const answer = await client(stack.url).get('/terminal/v1/nothing-here');
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(answer.body.code).toBe('not_found');
  });
});
