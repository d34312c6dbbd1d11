import type { OperatorRole } from '@locker/shared';
import { createOperator } from '../src/operators/accounts';
import { cliActor } from '../src/operators/audit';
import { totpCode } from '../src/operators/totp';
import type { HttpAnswer, TestStack } from './harness';

/**
 * A browser's view of /ops/v1: it keeps the session cookie the server sets and sends
 * `Origin` (this server's, unless told otherwise) the way a browser does on unsafe requests.
 */
export function opsClient(baseUrl: string, options: { origin?: string | null } = {}) {
  let cookie: string | undefined;
  const origin = options.origin === undefined ? baseUrl : options.origin;
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpAnswer> => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(origin && method !== 'GET' ? { origin } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    for (const set of response.headers.getSetCookie()) {
      const [pair] = set.split(';');
      cookie = /Max-Age=0/.test(set) ? undefined : pair;
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  };
  return {
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body: unknown = {}, headers?: Record<string, string>) =>
      call('POST', path, body, headers),
    delete: (path: string, headers?: Record<string, string>) =>
      call('DELETE', path, undefined, headers),
    raw: call,
    cookie: () => cookie,
    setCookie: (value: string | undefined) => {
      cookie = value;
    },
  };
}
export type OpsClient = ReturnType<typeof opsClient>;

/** A clock the test moves: the server's sessions and TOTP checks read it. */
export function testClock(start = Date.now()) {
  let at = start;
  return {
    now: () => new Date(at),
    advance: (ms: number) => {
      at += ms;
    },
  };
}

export const PASSWORD = 'correct horse battery staple';

/** The base32 secret of an otpauth:// URI. */
export function secretOf(uri: string): string {
  return new URL(uri).searchParams.get('secret')!;
}

let counter = 0;

/**
 * An operator made with the CLI's code, set up through the link, signed in through the
 * API (second factor enrolled when the role needs one). The clock moves a TOTP step on
 * after each code, so the next code is a fresh one.
 */
export async function signedInOperator(
  stack: Pick<TestStack, 'sql' | 'url'>,
  clock: ReturnType<typeof testClock>,
  role: OperatorRole,
  stations?: string[],
) {
  counter += 1;
  const email = `${role}.${counter}.${Date.now()}@ops.example`;
  const issued = await createOperator(stack.sql, cliActor(), { email, role, stations }, stack.url);
  const client = opsClient(stack.url);
  const setup = await client.post('/ops/v1/setup', {
    token: issued.setup_token,
    password: PASSWORD,
  });
  if (setup.status !== 204) throw new Error(`setup answered ${setup.status}: ${setup.text}`);
  const login = await client.post('/ops/v1/session', { email, password: PASSWORD });
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${login.text}`);
  let secret: string | undefined;
  let recoveryCodes: string[] = [];
  if (login.body.stage === 'second_factor_setup') {
    secret = secretOf(login.body.otpauth_uri);
    const done = await client.post('/ops/v1/session/second-factor', {
      code: totpCode(secret, clock.now()),
    });
    if (done.status !== 200) throw new Error(`second factor answered ${done.status}: ${done.text}`);
    recoveryCodes = done.body.recovery_codes;
    clock.advance(30_000);
  }
  return {
    email,
    id: issued.operator.id,
    client,
    secret,
    recoveryCodes,
    /** The authenticator's code now (and the clock moved on past it). */
    code: () => {
      const code = totpCode(secret!, clock.now());
      clock.advance(30_000);
      return code;
    },
  };
}
