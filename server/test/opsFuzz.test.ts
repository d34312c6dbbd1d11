import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperator } from '../src/operators/accounts';
import { cliActor } from '../src/operators/audit';
import { createSession } from '../src/operators/sessions';
import { setRollout, storeRelease } from '../src/updates/releases';
import { openApiDocument } from '../src/openapi/document';
import { bodyNear, header, nastyNumber, nastyString, nastyValue, pathSegment } from './fuzzParts';
import { startTestServer, type TestStack } from './harness';
import { opsClient, PASSWORD, signedInOperator, testClock } from './opsClient';

// Property-based requests against every operation of the operations interface (/ops/v1),
// sent as a signed-in admin (second factor entered) or, now and then, with a session cookie
// or Origin that is wrong. Whatever is sent: never a 5xx; every status one the OpenAPI
// document gives the operation; every 4xx is problem+json carrying its correlation id and
// changes nothing (refusals are audited: the audit log is bookkeeping here).
// FUZZ_RUNS raises the number of requests per operation.
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);

let stack: TestStack;
const clock = testClock();
let admin: Awaited<ReturnType<typeof signedInOperator>>;
/** An operator whose sessions the sign-out operations end (never the admin's). */
let spareOperatorId: string;
const valid: Record<string, string> = {};
const tally = { requests: 0, byStatus: new Map<number, number>(), endpoints: new Set<string>() };

/** An operator set up with PASSWORD (no second factor yet); answers their e-mail and id. */
async function setUpOperator(label: string) {
  const email = `${label}.${Date.now()}@ops.example`;
  const issued = await createOperator(stack.sql, cliActor(), { email, role: 'support' }, stack.url);
  const setup = await opsClient(stack.url).post('/ops/v1/setup', {
    token: issued.setup_token,
    password: PASSWORD,
  });
  expect(setup.status, setup.text).toBe(204);
  return { email, id: issued.operator.id };
}

beforeAll(async () => {
  // No terminal goes offline mid-run (the liveness check would raise an alert between a
  // request's two digests).
  // No verifier worker: its background write of a deposit's verifier into `shipments`
  // could fall between a request's two digests.
  stack = await startTestServer({
    clock: clock.now,
    offlineAfterSeconds: 86_400,
    verifierConcurrency: 0,
  });
  admin = await signedInOperator(stack, clock, 'admin');
  const scene = await stack.scene('1:S,2:M,3:L,4:XL');
  const other = await stack.scene('1:S');
  const { shipment } = await scene.deposit();
  for (const position of [3, 4]) {
    const fault = await scene.terminal.api.post('/terminal/v1/door/fault', { position });
    expect(fault.status, fault.text).toBe(200);
  }
  const alerts = await stack.sql<{ id: string }[]>`
    select id::text from alerts where station_id = ${scene.station.id} order by id`;
  const [key] = await stack.sql<{ id: string }[]>`
    select id from api_keys where organization_id = ${scene.org.id}`;
  const spare = await setUpOperator('spare');
  spareOperatorId = spare.id;
  const setupToken = (
    await createOperator(
      stack.sql,
      cliActor(),
      { email: `new.${Date.now()}@ops.example`, role: 'support' },
      stack.url,
    )
  ).setup_token;
  // A release rolled out (GET kiosk-rollout answers it) and another one to roll out.
  const releases = ['1.4.0', '1.5.0'];
  for (const version of releases) {
    const bundle = Buffer.from(`kiosk bundle ${version}`);
    const sha256 = createHash('sha256').update(bundle).digest('hex');
    await storeRelease(
      stack.sql,
      cliActor(),
      { version, sha256, size: bundle.length, signature: 'c2lnbmF0dXJl' },
      bundle,
    );
  }
  await setRollout(stack.sql, cliActor(), { version: releases[0]!, pilotStations: [], percent: 0 });
  Object.assign(valid, {
    release: releases[1],
    stationCode: scene.station.code,
    tracking: shipment.tracking_number,
    alertToAcknowledge: alerts[0]!.id,
    alertToResolve: alerts[1]!.id,
    terminalId: scene.terminal.id,
    terminalToRevoke: (await stack.terminal(other.station.code)).id,
    courierNumber: scene.courier.number,
    orgId: scene.org.id,
    otherOrgId: other.org.id,
    keyId: key!.id,
    adminEmail: admin.email,
    spareEmail: spare.email,
    deactivateEmail: (await setUpOperator('deactivate')).email,
    resetEmail: (await setUpOperator('reset')).email,
    setupToken,
  });
});
afterAll(async () => {
  console.log(
    `ops fuzz: ${tally.requests} requests over ${tally.endpoints.size} operations; statuses ${JSON.stringify(Object.fromEntries([...tally.byStatus].sort(([a], [b]) => a - b)))}`,
  );
  await stack?.close();
});

/** The last digest taken: nothing but the fuzzed requests changes the domain meanwhile. */
let domain: string | undefined;

/** What a request may change: every row of the domain, none of the bookkeeping. */
async function digest(): Promise<string> {
  const [row] = await stack.sql<{ d: string }[]>`
    select md5(concat_ws('|',
      (select string_agg(t::text, ',' order by t::text) from shipments t),
      (select string_agg(t::text, ',' order by t::text) from doors t),
      (select string_agg(t::text, ',' order by t::text) from door_occupancy t),
      (select string_agg(t::text, ',' order by t::text) from door_service_history t),
      (select string_agg(t::text, ',' order by t::text) from alerts t),
      (select string_agg(t::text, ',' order by t::text) from stations t),
      (select string_agg(concat_ws(' ', id, status, revoked_at, station_id), ',' order by id) from terminals),
      (select string_agg(t::text, ',' order by t::text) from terminal_enrolment_codes t),
      (select string_agg(concat_ws(' ', version, sha256), ',' order by version) from kiosk_releases),
      (select string_agg(t::text, ',' order by t::text) from kiosk_rollout t),
      (select string_agg(t::text, ',' order by t::text) from couriers t),
      (select string_agg(t::text, ',' order by t::text) from organizations t),
      (select string_agg(t::text, ',' order by t::text) from api_keys t),
      (select string_agg(t::text, ',' order by t::text) from operators t),
      (select string_agg(t::text, ',' order by t::text) from operator_stations t),
      (select string_agg(t::text, ',' order by t::text) from operator_recovery_codes t),
      (select string_agg(concat_ws(' ', id, operator_id, stage, ended_at, second_factor_at), ','
                         order by id) from operator_sessions)
    )) as d`;
  return row!.d;
}

/** Who sends the request: the admin, or a session or Origin that should not get in. */
type Credential =
  | 'admin'
  /** A fresh complete session of the spare operator (for the sign-outs). */
  | 'spare'
  /** A fresh half-signed-in session of the spare operator (password only). */
  | 'pending'
  | { cookie: string | null; origin: string | null };

interface Request {
  method: string;
  path: string;
  body?: string;
  credential: Credential;
}

interface Target {
  /** The OpenAPI operation, `method path` as the document writes it. */
  operation: string;
  request: fc.Arbitrary<Request>;
}

/** Mostly `usual`; sometimes no cookie, a forged one, no Origin or another Origin. */
const credential = (usual: fc.Arbitrary<Credential> = fc.constant('admin')) =>
  fc.oneof(
    { weight: 8, arbitrary: usual },
    {
      weight: 1,
      arbitrary: fc.record({
        cookie: fc.option(
          fc.oneof(
            nastyString.map((s) => `locker_ops=${s}`),
            fc.constant(`locker_ops=${'A'.repeat(43)}`),
            nastyString,
          ),
        ),
        origin: fc.option(
          fc.oneof(fc.constant('https://evil.example'), fc.constant('null'), nastyString),
        ),
      }),
    },
  );

const clean = (v: string) => v.replace(/[\ud800-\udfff]/g, '\ufffd');

/** A query near `template`: each key kept, dropped or replaced; sometimes a stray key. */
function queryNear(template: Record<string, string>) {
  const value = (v: string) =>
    fc.oneof(fc.constant(v), fc.constant(undefined), nastyString, nastyNumber.map(String));
  return fc
    .tuple(
      fc.record(Object.fromEntries(Object.keys(template).map((k) => [k, value(template[k]!)]))),
      fc.option(fc.tuple(nastyString, nastyString)),
    )
    .map(([fields, stray]) => {
      const pairs = Object.entries(fields).filter((p): p is [string, string] => p[1] !== undefined);
      if (stray) pairs.push(stray);
      const query = pairs.map(([k, v]) => `${pathSegment(clean(k))}=${pathSegment(v)}`).join('&');
      return query ? `?${query}` : '';
    });
}

/** A path segment: the valid one, a random UUID or a nasty string. */
const segment = (...valids: string[]) =>
  fc.oneof(
    fc.constantFrom(...valids),
    fc.uuid(),
    fc.constantFrom('0', '-1', '1.5', '99999999999999999999', '2147483648'),
    nastyString,
  );

/**
 * A live-link command's wait_seconds: 0 or a value it refuses, never left out nor a real
 * wait. With no kiosk connected, a body without it (the default, 10 s) or with 1 to 30
 * holds its request that long for an outcome that never comes: a run's minutes, at
 * random, testing nothing the 0 does not.
 */
const noWait = fc.oneof(
  fc.constant(0),
  nastyValue.filter((v) => !(typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 30)),
);

const get = (path: fc.Arbitrary<string>, who?: fc.Arbitrary<Credential>) =>
  fc
    .tuple(path, credential(who))
    .map(([p, c]): Request => ({ method: 'GET', path: p, credential: c }));
const post = (
  path: fc.Arbitrary<string>,
  template?: () => Record<string, unknown>,
  own?: Record<string, fc.Arbitrary<unknown>>,
) =>
  fc
    .tuple(
      path,
      template ? fc.constant(null).chain(() => bodyNear(template(), own)) : fc.constant(undefined),
      credential(),
    )
    .map(([p, body, c]): Request => ({ method: 'POST', path: p, body, credential: c }));

const put = (path: fc.Arbitrary<string>, template: () => Record<string, unknown>) =>
  fc
    .tuple(
      path,
      fc.constant(null).chain(() => bodyNear(template())),
      credential(),
    )
    .map(([p, body, c]): Request => ({ method: 'PUT', path: p, body, credential: c }));

const targets = (): Target[] => [
  {
    operation: 'post /ops/v1/setup',
    request: post(fc.constant('/ops/v1/setup'), () => ({
      token: valid.setupToken,
      password: 'x',
    })),
  },
  {
    operation: 'post /ops/v1/session',
    request: post(fc.constant('/ops/v1/session'), () => ({
      email: valid.spareEmail,
      password: 'not the password',
    })),
  },
  { operation: 'get /ops/v1/session', request: get(fc.constant('/ops/v1/session')) },
  ...['/ops/v1/session', '/ops/v1/sessions'].map((path) => ({
    operation: `delete ${path}`,
    request: credential(fc.constant('spare')).map((c): Request => ({
      method: 'DELETE',
      path,
      credential: c,
    })),
  })),
  {
    operation: 'post /ops/v1/session/second-factor',
    request: fc
      .tuple(
        bodyNear({ code: '123456', recovery_code: 'abcd-efgh' }),
        credential(fc.constantFrom<Credential>('pending', 'admin')),
      )
      .map(([body, c]) => ({
        method: 'POST',
        path: '/ops/v1/session/second-factor',
        body,
        credential: c,
      })),
  },
  {
    operation: 'post /ops/v1/session/step-up',
    request: post(fc.constant('/ops/v1/session/step-up'), () => ({ code: '000000' })),
  },
  { operation: 'get /ops/v1/operators', request: get(fc.constant('/ops/v1/operators')) },
  {
    operation: 'post /ops/v1/operators',
    request: post(fc.constant('/ops/v1/operators'), () => ({
      email: 'fuzz.technician@ops.example',
      role: 'technician',
      stations: [valid.stationCode],
    })),
  },
  {
    operation: 'post /ops/v1/operators/{email}/deactivate',
    request: post(
      segment(valid.deactivateEmail!).map((e) => `/ops/v1/operators/${pathSegment(e)}/deactivate`),
    ),
  },
  {
    operation: 'post /ops/v1/operators/{email}/reset',
    request: post(
      segment(valid.resetEmail!).map((e) => `/ops/v1/operators/${pathSegment(e)}/reset`),
    ),
  },
  { operation: 'get /ops/v1/overview', request: get(fc.constant('/ops/v1/overview')) },
  {
    operation: 'get /ops/v1/stations',
    request: get(
      queryNear({
        cursor: 'x',
        limit: '2',
        offline: 'true',
        has_alerts: 'false',
        q: 'ST',
        sort: 'alerts_first',
      }).map((q) => `/ops/v1/stations${q}`),
    ),
  },
  {
    operation: 'get /ops/v1/stations/{code}',
    request: get(segment(valid.stationCode!).map((c) => `/ops/v1/stations/${pathSegment(c)}`)),
  },
  {
    operation: 'get /ops/v1/stations/{code}/overdue',
    request: get(
      segment(valid.stationCode!).map((c) => `/ops/v1/stations/${pathSegment(c)}/overdue`),
    ),
  },
  {
    operation: 'post /ops/v1/stations/{code}/doors/{position}/service',
    request: post(
      fc
        .tuple(segment(valid.stationCode!), segment('1', '2'))
        .map(([c, p]) => `/ops/v1/stations/${pathSegment(c)}/doors/${pathSegment(p)}/service`),
      () => ({ in_service: false, reason: 'fuzzing' }),
    ),
  },
  // The live link: no kiosk is connected here; wait_seconds 0 answers 202 at once.
  {
    operation: 'post /ops/v1/stations/{code}/doors/{position}/open',
    request: post(
      fc
        .tuple(segment(valid.stationCode!), segment('1', '2'))
        .map(([c, p]) => `/ops/v1/stations/${pathSegment(c)}/doors/${pathSegment(p)}/open`),
      () => ({ reason: 'fuzzing', wait_seconds: 0 }),
      { wait_seconds: noWait },
    ),
  },
  {
    operation: 'post /ops/v1/link/approvals/{id}/approve',
    request: post(
      segment('6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b').map(
        (id) => `/ops/v1/link/approvals/${pathSegment(id)}/approve`,
      ),
      () => ({ wait_seconds: 0 }),
      { wait_seconds: noWait },
    ),
  },
  ...(['refresh-config', 'reload-screen', 'upload-logs'] as const).map((command) => ({
    operation: `post /ops/v1/stations/{code}/link/${command}`,
    request: post(
      segment(valid.stationCode!).map((c) => `/ops/v1/stations/${pathSegment(c)}/link/${command}`),
      () => ({
        reason: 'fuzzing',
        ...(command === 'upload-logs' ? { minutes: 5 } : {}),
        wait_seconds: 0,
      }),
      { wait_seconds: noWait },
    ),
  })),
  {
    operation: 'get /ops/v1/link/commands/{id}',
    request: get(
      segment('6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b').map(
        (id) => `/ops/v1/link/commands/${pathSegment(id)}`,
      ),
    ),
  },
  {
    operation: 'get /ops/v1/link/commands/{id}/logs',
    request: get(
      segment('6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b').map(
        (id) => `/ops/v1/link/commands/${pathSegment(id)}/logs`,
      ),
    ),
  },
  {
    operation: 'get /ops/v1/parcels',
    request: get(
      queryNear({
        q: valid.tracking!,
        station: valid.stationCode!,
        door: '1',
        cursor: 'x',
        limit: '5',
      }).map((q) => `/ops/v1/parcels${q}`),
    ),
  },
  {
    operation: 'get /ops/v1/alerts',
    request: get(
      queryNear({
        status: 'all',
        station: valid.stationCode!,
        kind: 'door_fault',
        cursor: 'x',
        limit: '5',
      }).map((q) => `/ops/v1/alerts${q}`),
    ),
  },
  { operation: 'get /ops/v1/alerts/stream', request: get(fc.constant('/ops/v1/alerts/stream')) },
  ...(['acknowledge', 'resolve'] as const).map((action) => ({
    operation: `post /ops/v1/alerts/{id}/${action}`,
    request: post(
      segment(action === 'acknowledge' ? valid.alertToAcknowledge! : valid.alertToResolve!).map(
        (id) => `/ops/v1/alerts/${pathSegment(id)}/${action}`,
      ),
      () => ({ note: 'fuzzing' }),
    ),
  })),
  {
    operation: 'get /ops/v1/terminals',
    request: get(
      queryNear({
        status: 'online',
        station: valid.stationCode!,
        cursor: 'x',
        limit: '5',
      }).map((q) => `/ops/v1/terminals${q}`),
    ),
  },
  {
    operation: 'post /ops/v1/terminals',
    request: post(fc.constant('/ops/v1/terminals'), () => ({ station: valid.stationCode })),
  },
  { operation: 'get /ops/v1/kiosk-rollout', request: get(fc.constant('/ops/v1/kiosk-rollout')) },
  {
    operation: 'put /ops/v1/kiosk-rollout',
    request: put(fc.constant('/ops/v1/kiosk-rollout'), () => ({
      version: valid.release,
      pilotStations: [valid.stationCode],
      percent: 25,
    })),
  },
  {
    operation: 'post /ops/v1/terminals/{id}/enrolment-code',
    request: post(
      segment(valid.terminalId!).map((id) => `/ops/v1/terminals/${pathSegment(id)}/enrolment-code`),
    ),
  },
  ...(['disable', 'enable', 'revoke'] as const).map((change) => ({
    operation: `post /ops/v1/terminals/{id}/${change}`,
    request: post(
      segment(change === 'revoke' ? valid.terminalToRevoke! : valid.terminalId!).map(
        (id) => `/ops/v1/terminals/${pathSegment(id)}/${change}`,
      ),
      () => ({ reason: 'fuzzing' }),
    ),
  })),
  {
    operation: 'get /ops/v1/couriers',
    request: get(
      queryNear({ cursor: 'x', limit: '5', q: 'C-', active: 'true' }).map(
        (q) => `/ops/v1/couriers${q}`,
      ),
    ),
  },
  {
    operation: 'post /ops/v1/couriers',
    request: post(fc.constant('/ops/v1/couriers'), () => ({ number: 'F-1', name: 'Fuzz' })),
  },
  {
    operation: 'post /ops/v1/couriers/{number}/deactivate',
    request: post(
      segment(valid.courierNumber!).map((n) => `/ops/v1/couriers/${pathSegment(n)}/deactivate`),
      () => ({ reason: 'fuzzing' }),
    ),
  },
  {
    operation: 'get /ops/v1/organizations',
    request: get(queryNear({ cursor: 'x', limit: '5' }).map((q) => `/ops/v1/organizations${q}`)),
  },
  {
    operation: 'post /ops/v1/organizations',
    request: post(fc.constant('/ops/v1/organizations'), () => ({ name: 'Fuzz shop' })),
  },
  {
    operation: 'get /ops/v1/organizations/{id}/keys',
    request: get(
      segment(valid.orgId!).map((id) => `/ops/v1/organizations/${pathSegment(id)}/keys`),
    ),
  },
  {
    operation: 'post /ops/v1/organizations/{id}/keys',
    request: post(
      segment(valid.orgId!).map((id) => `/ops/v1/organizations/${pathSegment(id)}/keys`),
    ),
  },
  {
    operation: 'post /ops/v1/organizations/{id}/keys/rotate',
    request: post(
      segment(valid.otherOrgId!).map(
        (id) => `/ops/v1/organizations/${pathSegment(id)}/keys/rotate`,
      ),
    ),
  },
  {
    operation: 'post /ops/v1/organizations/{id}/keys/{keyId}/revoke',
    request: post(
      fc
        .tuple(segment(valid.orgId!), segment(valid.keyId!))
        .map(
          ([id, key]) => `/ops/v1/organizations/${pathSegment(id)}/keys/${pathSegment(key)}/revoke`,
        ),
      () => ({ reason: 'fuzzing' }),
    ),
  },
  {
    operation: 'get /ops/v1/audit',
    request: get(
      queryNear({
        actor: valid.adminEmail!,
        action: 'door.service',
        from: '2026-01-01T00:00:00Z',
        to: '2036-01-01T00:00:00Z',
        cursor: 'x',
        limit: '5',
      }).map((q) => `/ops/v1/audit${q}`),
    ),
  },
  {
    operation: 'get /ops/v1/audit/export',
    request: get(
      queryNear({
        actor: valid.adminEmail!,
        action: 'door',
        from: '2026-01-01T00:00:00Z',
        to: '2036-01-01T00:00:00Z',
      }).map((q) => `/ops/v1/audit/export${q}`),
    ),
  },
];

type OpenApi = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
const doc = openApiDocument() as unknown as OpenApi;

/** The Cookie and Origin headers of a request's credential. */
async function headersOf(credential: Credential): Promise<Record<string, string>> {
  const origin = { origin: stack.url };
  if (credential === 'admin') return { cookie: admin.client.cookie()!, ...origin };
  if (credential === 'spare' || credential === 'pending') {
    const { token } = await createSession(
      stack.sql,
      spareOperatorId,
      credential === 'spare' ? 'complete' : 'password',
      clock.now(),
      { address: '127.0.0.1', userAgent: 'fuzz' },
      credential === 'spare' ? clock.now() : null,
    );
    return { cookie: `locker_ops=${token}`, ...origin };
  }
  return {
    ...header('cookie', credential.cookie),
    ...header('origin', credential.origin),
  };
}

describe('fuzzing every operation of the operations interface', () => {
  it('has a target for every /ops/v1 operation of the OpenAPI document', () => {
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/ops/'))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
    expect(documented.length).toBeGreaterThanOrEqual(40);
    expect(
      targets()
        .map((t) => t.operation)
        .sort(),
    ).toEqual(documented.sort());
  });

  it('refuses U+0000 in a list’s query with 422 (it was a 500 on the couriers’ list)', async () => {
    for (const query of ['q=Q%00Q', 'cursor=%00', 'active=true&q=%00']) {
      const answer = await admin.client.get(`/ops/v1/couriers?${query}`);
      expect(answer.status, `${query}: ${answer.text}`).toBe(422);
      expect(answer.body.code).toBe('validation_failed');
    }
  });

  it('never answers 5xx; every 4xx is problem+json with its correlation id and changes nothing', async () => {
    domain = undefined;
    for (const target of targets()) {
      const [method, path] = target.operation.split(' ') as [string, string];
      const documented = Object.keys(doc.paths[path]![method]!.responses);
      await fc.assert(
        fc.asyncProperty(target.request, async (request) => {
          // Limits would answer 429 before the handler sees the input: start each fresh.
          await stack.sql`delete from rate_limit_windows`;
          const headers = await headersOf(request.credential);
          // The domain as the last request left it, unless this credential is a session
          // made just now (a row of the domain): a digest is 3 ms, so one per request.
          if (request.credential === 'spare' || request.credential === 'pending')
            domain = await digest();
          const before = (domain ??= await digest());
          // Taken again after the request, or by the next one if this one throws.
          domain = undefined;
          const abort = new AbortController();
          const response = await fetch(stack.url + request.path, {
            method: request.method,
            headers: {
              ...headers,
              ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            body: request.body,
            signal: abort.signal,
          });
          // The alert stream stays open: its headers are the answer.
          const streaming = response.headers.get('content-type')?.startsWith('text/event-stream');
          const text = streaming ? '' : await response.text();
          abort.abort();
          domain = await digest();
          tally.requests++;
          tally.endpoints.add(target.operation);
          tally.byStatus.set(response.status, (tally.byStatus.get(response.status) ?? 0) + 1);
          const context = `${target.operation} ${request.path} ${JSON.stringify(request.credential)} ${request.body?.slice(0, 300)} → ${response.status} ${text.slice(0, 300)}`;
          expect(response.status, context).toBeLessThan(500);
          expect(documented, `${context}: undocumented status`).toContain(String(response.status));
          if (response.status < 400) return;
          expect(response.headers.get('content-type'), context).toBe('application/problem+json');
          const problem = JSON.parse(text) as { correlation_id?: string; status?: number };
          expect(problem.status, context).toBe(response.status);
          expect(problem.correlation_id, context).toBe(response.headers.get('x-correlation-id'));
          // A remote open past the limits is held for a second administrator: its 429
          // records the approval and raises remote_open_burst (docs/terminal-extensions.md).
          if (!(
            target.operation === 'post /ops/v1/stations/{code}/doors/{position}/open' &&
            response.status === 429
          ))
            expect(domain, context).toBe(before);
        }),
        { numRuns: RUNS },
      );
    }
    expect(tally.byStatus.get(500) ?? 0).toBe(0);
    // The admin's session outlived all of it.
    expect((await admin.client.get('/ops/v1/session')).status).toBe(200);
  }, 900_000);
});
