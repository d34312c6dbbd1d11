import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { revokeTerminal, setTerminalStatus } from '../admin/commands';
import type { Sql } from '../db/connect';
import { ProblemError } from '../http/problem';
import { hashSecret } from '../domain/secrets';
import { useTestServer, waitFor } from '../../test/harness';
import { authenticateTerminal } from './auth';
import { TerminalAuthCache } from './authCache';

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
  it('costs unknown, revoked, disabled and offline tokens the same work, refusal after refusal', async () => {
    const station = await stack.station('1:S');
    const revoked = await stack.terminal(station.code);
    await revokeTerminal(stack.sql, revoked.id);
    const disabled = await stack.terminal(station.code);
    await setTerminalStatus(stack.sql, disabled.id, 'disabled');
    const offline = await stack.terminal(station.code);
    await setTerminalStatus(stack.sql, offline.id, 'offline');
    const kinds = {
      unknown: `tdev_${randomBytes(24).toString('base64url')}`,
      revoked: revoked.token,
      disabled: disabled.token,
      offline: offline.token,
    };
    const { sql, counter } = countingSql(stack.sql);
    const authenticate = authenticateTerminal(sql, new TerminalAuthCache());
    // Statements each refusal sent, per kind of token: the distributions must be equal.
    const work: Record<string, number[]> = {};
    for (let round = 0; round < 200; round++) {
      for (const [kind, token] of Object.entries(kinds)) {
        const before = counter.statements;
        const refusal = await authenticate(contextWith(token), () => Promise.resolve()).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refusal).toBeInstanceOf(ProblemError);
        expect((refusal as ProblemError).code).toBe('unauthorized');
        (work[kind] ??= []).push(counter.statements - before);
      }
    }
    const first = (kind: string) => work[kind]![0];
    const rest = (kind: string) => work[kind]!.slice(1).reduce((a, b) => a + b, 0);
    for (const kind of Object.keys(kinds)) {
      expect({ kind, first: first(kind), rest: rest(kind) }).toEqual({ kind, first: 1, rest: 0 });
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
