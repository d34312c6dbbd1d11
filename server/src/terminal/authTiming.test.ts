import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { revokeTerminal, setTerminalStatus } from '../admin/commands';
import type { Sql } from '../db/connect';
import { ProblemError } from '../http/problem';
import { hashSecret } from '../domain/secrets';
import { useTestServer, waitFor } from '../../test/harness';
import { authenticateTerminal } from './auth';
import { TerminalAuthCache, loadAll } from './authCache';
import { closeUnreadBodies, readJson } from '../http/body';
import { problemResponses } from '../http/errors';
import { rawRequest } from '../../test/rawHttp';

const stack = useTestServer();

/** The real client, counting the statements sent through it. */
function countingSql(sql: Sql) {
  const counter = { statements: 0 };
  const counted = new Proxy(sql, {
    apply(target, self, args: Parameters<Sql>) {
      counter.statements++;
      return Reflect.apply(target, self, args) as unknown;
    },
  });
  return { sql: counted, counter };
}

function contextWith(token: string) {
  return {
    req: { headersDistinct: { authorization: [`Bearer ${token}`] } },
    state: {},
  } as unknown as Context;
}

describe('device-token lookup takes one path whether the token exists or not', () => {
  it('costs unknown, fresh, revoked, disabled and offline tokens the same work: one lookup', async () => {
    const station = await stack.station('1:S');
    const revoked = await stack.terminal(station.code);
    await revokeTerminal(stack.sql, revoked.id);
    const disabled = await stack.terminal(station.code);
    await setTerminalStatus(stack.sql, disabled.id, 'disabled');
    const offline = await stack.terminal(station.code);
    await setTerminalStatus(stack.sql, offline.id, 'offline');
    const kinds = {
      unknown: () => `tdev_${randomBytes(24).toString('base64url')}`,
      // Never seen before, a new one each time: the case that used to wait for the database.
      fresh: () => `tdev_${randomBytes(24).toString('base64url')}`,
      revoked: () => revoked.token,
      disabled: () => disabled.token,
      offline: () => offline.token,
    };
    const unknown = kinds.unknown();
    kinds.unknown = () => unknown;
    const { sql, counter } = countingSql(stack.sql);
    const cache = new TerminalAuthCache();
    expect(await loadAll(stack.sql, cache)).toBe(true);
    expect(cache.isComplete).toBe(true);
    const authenticate = authenticateTerminal(sql, cache);
    // Statements each refusal sent, per kind of token.
    const work: Record<string, number> = {};
    for (let round = 0; round < 200; round++) {
      for (const [kind, token] of Object.entries(kinds)) {
        const before = counter.statements;
        const refusal = await authenticate(contextWith(token()), () => Promise.resolve()).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refusal).toBeInstanceOf(ProblemError);
        expect((refusal as ProblemError).code).toBe('unauthorized');
        work[kind] = (work[kind] ?? 0) + counter.statements - before;
      }
    }
    // One lookup each, whichever the kind: the same statements for every refusal.
    const perLookup = work.fresh! / 200;
    expect(perLookup).toBeGreaterThan(0);
    expect(work).toEqual({
      unknown: 200 * perLookup,
      fresh: 200 * perLookup,
      revoked: 200 * perLookup,
      disabled: 200 * perLookup,
      offline: 200 * perLookup,
    });
    // An allowed terminal is answered from the replica, however long since it was seen.
    const online = await stack.terminal(station.code);
    const warm = new TerminalAuthCache();
    await loadAll(stack.sql, warm);
    const before = counter.statements;
    for (let i = 0; i < 20; i++)
      await authenticateTerminal(sql, warm)(contextWith(online.token), () => Promise.resolve());
    expect(counter.statements - before).toBe(0);
  });

  it('lets a terminal in the moment it is created, before its notification arrives', async () => {
    const station = await stack.station('1:S');
    const cache = new TerminalAuthCache();
    await loadAll(stack.sql, cache);
    // Created after the replica was read, with no listener to tell it: the database does.
    const t = await stack.terminal(station.code);
    const ctx = contextWith(t.token);
    let admitted = false;
    await authenticateTerminal(stack.sql, cache)(ctx, () => {
      admitted = true;
      return Promise.resolve();
    });
    expect(admitted).toBe(true);
    expect(ctx.state.terminal.id).toBe(t.id);
  });

  it('answers a refused POST the same Connection whether it waited for the database or not', async () => {
    const app = new Koa();
    app.use(closeUnreadBodies);
    app.use(problemResponses());
    const station = await stack.station('1:S');
    const t = await stack.terminal(station.code);
    const warm = new TerminalAuthCache();
    await loadAll(stack.sql, warm);
    // A cold cache asks the database: the body has arrived by the time it answers.
    const cold = new TerminalAuthCache();
    app.use(async (ctx, next) => {
      const cache = ctx.path === '/cold' ? cold : warm;
      await authenticateTerminal(stack.sql, cache)(ctx, next);
    });
    app.use(async (ctx) => {
      ctx.body = { read: await readJson(ctx) };
    });
    const handle = app.callback();
    const server = http.createServer((req, res) => void handle(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const body = '{"code":"12345678"}';
    const post = (path: string, token: string) =>
      rawRequest(
        port,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        { body, closeWithinMs: 500 },
      );
    try {
      const fresh = () => `tdev_${randomBytes(24).toString('base64url')}`;
      const answers = [
        await post('/warm', fresh()),
        await post('/cold', fresh()),
        await post('/warm', fresh()),
        await post('/cold', fresh()),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(401);
        expect(answer.headers.connection).toBe('close');
        expect(answer.closed).toBe(true);
      }
      // An accepted POST whose body was read keeps its connection.
      const accepted = await post('/warm', t.token);
      expect(accepted.status).toBe(200);
      expect(accepted.headers.connection).toBe('keep-alive');
      expect(accepted.closed).toBe(false);
    } finally {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
    }
  });

  it('lets a terminal in whose token was probed before it was created', async () => {
    const station = await stack.station('1:S');
    const t = await stack.terminal(station.code);
    // Probe the hash as unknown on the server's own cache, then give it to a terminal.
    const token = `tdev_${randomBytes(24).toString('base64url')}`;
    const probe = await stack.anonymous.get('/terminal/v1/cabinet', {
      authorization: `Bearer ${token}`,
    });
    expect(probe.status).toBe(401);
    await stack.sql`update terminals set token_hash = ${hashSecret(token)} where id = ${t.id}`;
    await waitFor(async () => {
      const answer = await stack.anonymous.get('/terminal/v1/cabinet', {
        authorization: `Bearer ${token}`,
      });
      return answer.status === 200 ? true : undefined;
    }, 3000);
  });
});
