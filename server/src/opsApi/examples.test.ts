import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestStack } from '../../test/harness';
import { opsClient, PASSWORD, secretOf, signedInOperator, testClock } from '../../test/opsClient';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createOperator } from '../operators/accounts';
import { cliActor } from '../operators/audit';
import { totpCode } from '../operators/totp';
import { setRollout, storeRelease } from '../updates/releases';
import { opsExamples, type OpsOperationId } from '../openapi/opsExamples';

// Every operation of the operations interface (/ops/v1) in the OpenAPI document, sent to a
// real server by a signed-in admin (second factor entered) with the document's own
// examples: each answer's status is one the operation documents, and its body matches the
// schema documented for that status. Then again with the examples' ids and values swapped
// for real ones, where every operation must succeed. Signing out (here and everywhere)
// uses sessions of their own, so the admin's stays live throughout.

let stack: TestStack;
const clock = testClock();
let admin: Awaited<ReturnType<typeof signedInOperator>>;

beforeAll(async () => {
  stack = await startTestServer({ clock: clock.now });
  admin = await signedInOperator(stack, clock, 'admin');
});
afterAll(() => stack.close());

interface MediaType {
  schema?: unknown;
  example?: unknown;
}
interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  schema?: { example?: string | number };
  example?: string | number;
}
interface OperationObject {
  operationId: string;
  security?: Record<string, unknown>[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
type Document = { paths: Record<string, Record<string, OperationObject>> };

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter += 1)}`;

/** An operator whose password is set (signs in with PASSWORD), with no second factor yet. */
async function setUpOperator() {
  const email = `set.up.${unique()}@ops.example`;
  const issued = await createOperator(
    stack.sql,
    cliActor(),
    { email, role: 'operations' },
    stack.url,
  );
  const client = opsClient(stack.url);
  const setup = await client.post('/ops/v1/setup', {
    token: issued.setup_token,
    password: PASSWORD,
  });
  expect(setup.status, setup.text).toBe(204);
  return { email, client };
}

/** An operator half signed in: password given, the second factor's enrolment pending. */
async function halfSignedIn() {
  const { email, client } = await setUpOperator();
  const login = await client.post('/ops/v1/session', { email, password: PASSWORD });
  expect(login.body.stage, login.text).toBe('second_factor_setup');
  return { cookie: client.cookie()!, secret: secretOf(login.body.otpauth_uri) };
}

/** What the real pass sends instead of the examples: path parameters, query, body, cookie. */
interface Real {
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** The session cookie to send instead of the admin's. */
  cookie?: string;
}

async function fixtures() {
  const scene = await stack.scene('1:S,2:M,3:L,4:XL');
  const other = await stack.scene('1:S,2:M');
  const { shipment } = await scene.deposit();
  const spareTerminal = await stack.terminal(scene.station.code);
  // Two alerts (a door that would not open), one to acknowledge, one to resolve.
  for (const position of [3, 4]) {
    const fault = await scene.terminal.api.post('/terminal/v1/door/fault', { position });
    expect(fault.status, fault.text).toBe(200);
  }
  const alerts = await stack.sql<{ id: string }[]>`
    select id::text from alerts where station_id = ${scene.station.id} order by id`;
  expect(alerts).toHaveLength(2);
  const [key] = await stack.sql<{ id: string }[]>`
    select id from api_keys where organization_id = ${scene.org.id}`;
  const deactivated = await setUpOperator();
  const reset = await setUpOperator();
  const setupToken = (
    await createOperator(
      stack.sql,
      cliActor(),
      { email: `new.${unique()}@ops.example`, role: 'support' },
      stack.url,
    )
  ).setup_token;
  const signIn = await setUpOperator();
  // A release rolled out already (GET kiosk-rollout answers it) and another to roll out.
  const releases = [`1.4.${unique()}`, `1.5.${unique()}`];
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

  // The live link: no kiosk is connected, so each command answers 202 at once
  // (wait_seconds 0). A remote open held back for a second administrator, asked by
  // another; and a log bundle uploaded for a command sent to the station's terminal.
  const approvalId = crypto.randomUUID();
  await stack.sql`
    insert into link_approvals (id, station_id, door, reason, requested_by, requested_role,
                                expires_at)
    values (${approvalId}, ${scene.station.id}, 2, 'customer at the locker, code lost',
            'someone.else@ops.example', 'admin', now() + interval '1 hour')`;
  const logsAsked = await admin.client.post(
    `/ops/v1/stations/${scene.station.code}/link/upload-logs`,
    { reason: 'door 3 faults', wait_seconds: 0 },
  );
  expect(logsAsked.status, logsAsked.text).toBe(202);
  const logsCommand = (logsAsked.body as { id: string }).id;
  await stack.sql`
    insert into link_log_bundles (command_id, terminal_id, content_type, body)
    select id, (select t.id from terminals t where t.station_id = ${scene.station.id} limit 1),
           'application/gzip', ${gzipSync('{"msg":"door 3 fault"}\n')}
      from link_commands where id = ${logsCommand}`;

  /** Another admin's session: signing out must not end the admin's of this test. */
  const ownSession = async () => (await signedInOperator(stack, clock, 'admin')).client.cookie()!;

  const real: Record<OpsOperationId, () => Real | Promise<Real>> = {
    opsCompleteSetup: () => ({ body: { token: setupToken, password: PASSWORD } }),
    opsSignIn: () => ({ body: { email: signIn.email, password: PASSWORD } }),
    opsGetSession: () => ({}),
    opsSignOut: async () => ({ cookie: await ownSession() }),
    opsSignOutEverywhere: async () => ({ cookie: await ownSession() }),
    opsEnterSecondFactor: async () => {
      const half = await halfSignedIn();
      return { cookie: half.cookie, body: { code: totpCode(half.secret, clock.now()) } };
    },
    opsStepUp: () => ({ body: { code: admin.code() } }),
    opsListOperators: () => ({}),
    opsCreateOperator: () => ({
      body: {
        email: `tech.${unique()}@ops.example`,
        role: 'technician',
        stations: [scene.station.code],
      },
    }),
    opsDeactivateOperator: () => ({ path: { email: deactivated.email } }),
    opsResetOperator: () => ({ path: { email: reset.email } }),
    opsGetOverview: () => ({}),
    opsListStations: () => ({}),
    opsGetStation: () => ({ path: { code: scene.station.code } }),
    opsListOverdue: () => ({ path: { code: scene.station.code } }),
    opsSetDoorService: () => ({ path: { code: scene.station.code, position: '1' } }),
    opsSearchParcels: () => ({ query: { q: shipment.tracking_number } }),
    opsListAlerts: () => ({}),
    opsStreamAlerts: () => ({}),
    opsAcknowledgeAlert: () => ({ path: { id: alerts[0]!.id } }),
    opsResolveAlert: () => ({ path: { id: alerts[1]!.id } }),
    opsListTerminals: () => ({}),
    opsCreateTerminal: () => ({ body: { station: scene.station.code } }),
    opsGetKioskRollout: () => ({}),
    opsSetKioskRollout: () => ({
      body: { version: releases[1], pilotStations: [scene.station.code], percent: 25 },
    }),
    opsIssueEnrolmentCode: () => ({ path: { id: spareTerminal.id } }),
    opsDisableTerminal: () => ({ path: { id: spareTerminal.id } }),
    opsEnableTerminal: () => ({ path: { id: spareTerminal.id } }),
    opsRevokeTerminal: async () => ({
      path: { id: (await stack.terminal(scene.station.code)).id },
    }),
    opsListCouriers: () => ({}),
    opsCreateCourier: () => ({ body: { number: `C-${unique()}`, name: 'Besa Hoxha' } }),
    opsDeactivateCourier: () => ({ path: { number: scene.courier.number } }),
    opsListOrganizations: () => ({}),
    opsCreateOrganization: () => ({ body: { name: `Shop ${unique()}` } }),
    opsListApiKeys: () => ({ path: { id: scene.org.id } }),
    opsIssueApiKey: () => ({ path: { id: scene.org.id } }),
    // Another organization: a rotation revokes every other key, the one revoked below too.
    opsRotateApiKeys: () => ({ path: { id: other.org.id } }),
    opsRevokeApiKey: () => ({ path: { id: scene.org.id, keyId: key!.id } }),
    opsListAudit: () => ({}),
    opsExportAudit: () => ({}),
    opsOpenDoorRemotely: () => ({
      path: { code: scene.station.code, position: '1' },
      body: { reason: 'customer at the locker, code lost', wait_seconds: 0 },
    }),
    opsApproveRemoteOpen: () => ({ path: { id: approvalId }, body: { wait_seconds: 0 } }),
    opsRefreshKioskConfig: () => ({
      path: { code: scene.station.code },
      body: { wait_seconds: 0 },
    }),
    opsReloadKioskScreen: () => ({ path: { code: scene.station.code }, body: { wait_seconds: 0 } }),
    opsUploadKioskLogs: () => ({
      path: { code: scene.station.code },
      body: { minutes: 5, wait_seconds: 0 },
    }),
    opsGetLinkCommand: () => ({ path: { id: logsCommand } }),
    opsGetLinkLogs: () => ({ path: { id: logsCommand } }),
  };
  /** Sessions the document's own examples end, for the same reason. */
  const docCookie: Partial<Record<OpsOperationId, () => Promise<string>>> = {
    opsSignOut: ownSession,
    opsSignOutEverywhere: ownSession,
  };
  return { scene, real, docCookie };
}

/** Reads a server-sent event stream until its first `alert` event; answers its data. */
async function firstAlertEvent(response: Response): Promise<unknown> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before an alert: ${text}`);
    text += decoder.decode(value, { stream: true });
    const event = /event: alert\n(?:id: \d+\n)?data: (.*)\n\n/.exec(text);
    if (event) {
      await reader.cancel();
      return JSON.parse(event[1]!);
    }
  }
}

describe('the operations interface of the OpenAPI document agrees with the server', () => {
  it('answers every ops operation’s example, sent by a signed-in admin, with a documented status and a body of its documented schema', async () => {
    const doc = (await (await fetch(`${stack.url}/openapi.json`)).json()) as Document;
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema(doc, 'openapi');
    const validatorOf = (ref: string) =>
      ajv.getSchema(`openapi#/${ref}`) ?? ajv.compile({ $ref: `openapi#/${ref}` });

    const operations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/ops/'))
      .flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]) => ({ path, method, op })),
      );
    // Every operation has an operationId of its own, and examples under it.
    expect(new Set(operations.map((o) => o.op.operationId)).size).toBe(operations.length);
    expect(operations.map((o) => o.op.operationId).sort()).toEqual(Object.keys(opsExamples).sort());
    const f = await fixtures();

    const seen: string[] = [];
    for (const real of [false, true]) {
      for (const { path, method, op } of operations) {
        const id = op.operationId as OpsOperationId;
        expect(id, `${method} ${path}`).toMatch(/^ops[A-Z][A-Za-z]+$/);
        const swap: Real = real ? await f.real[id]() : {};
        const params = op.parameters ?? [];
        let url = path;
        const query = new URLSearchParams();
        for (const p of params) {
          const example = p.example ?? p.schema?.example;
          if (p.in === 'path') {
            const value = swap.path?.[p.name] ?? example;
            expect(value, `${id}: example of path parameter ${p.name}`).toBeDefined();
            url = url.replace(`{${p.name}}`, encodeURIComponent(String(value)));
          } else if (p.in === 'query') {
            const value = swap.query?.[p.name] ?? example;
            if (value !== undefined) query.set(p.name, String(value));
          }
        }
        const requestExample = op.requestBody?.content['application/json']?.example;
        const sent = swap.body ?? requestExample;
        const hasExample =
          requestExample !== undefined ||
          params.some((p) => (p.example ?? p.schema?.example) !== undefined) ||
          Object.values(op.responses).some((r) =>
            Object.values(r.content ?? {}).some((m) => m.example !== undefined),
          );
        expect(hasExample, `${id} has an example`).toBe(true);
        const signedIn = (op.security ?? [{}]).some((s) => 'operatorSession' in s);
        const cookie =
          swap.cookie ??
          (!real && f.docCookie[id] ? await f.docCookie[id]() : undefined) ??
          (signedIn ? admin.client.cookie() : undefined);
        const abort = new AbortController();
        const response = await fetch(`${stack.url}${url}${query.size ? `?${query}` : ''}`, {
          method: method.toUpperCase(),
          headers: {
            ...(cookie ? { cookie } : {}),
            ...(method === 'get' ? {} : { origin: stack.url }),
            ...(sent === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: sent === undefined ? undefined : JSON.stringify(sent),
          signal: abort.signal,
        });
        const type = response.headers.get('content-type')?.split(';')[0] ?? '';
        const context = (text: string) =>
          `${id} (${real ? 'real values' : 'the document’s'}) → ${response.status} ${text.slice(0, 300)}`;
        const documented = op.responses[String(response.status)];
        seen.push(`${id} ${response.status}`);
        if (type === 'text/event-stream') {
          expect(documented?.content, context('')).toHaveProperty(type);
          // A change of an alert the admin may see arrives as a documented event.
          const event = firstAlertEvent(response);
          const fault = await f.scene.terminal.api.post('/terminal/v1/door/fault', {
            position: 2,
          });
          expect(fault.status, fault.text).toBe(200);
          const data = await event;
          abort.abort();
          const validate = validatorOf(
            pointer('paths', path, method, 'responses', '200', 'content', type, 'schema'),
          );
          expect(validate(data), `${context('')}\n${ajv.errorsText(validate.errors)}`).toBe(true);
          continue;
        }
        const text = await response.text();
        expect(documented, context(text)).toBeDefined();
        if (real) expect(response.status, context(text)).toBeLessThan(300);
        if (!documented!.content) {
          expect(text, context(text)).toBe('');
          continue;
        }
        expect(Object.keys(documented!.content), context(text)).toContain(type);
        if (!type.includes('json')) continue;
        const validate = validatorOf(
          pointer(
            'paths',
            path,
            method,
            'responses',
            String(response.status),
            'content',
            type,
            'schema',
          ),
        );
        expect(
          validate(JSON.parse(text)),
          `${context(text)}\n${ajv.errorsText(validate.errors)}`,
        ).toBe(true);
      }
    }
    // The admin's own session is live after all of it.
    expect((await admin.client.get('/ops/v1/session')).status).toBe(200);
    // The document's examples met refusals too: the path ids are ones no fixture has.
    expect(seen.filter((s) => / 404$/.test(s)).length).toBeGreaterThan(10);
    // And where they name nothing real, the examples themselves succeed.
    for (const id of ['opsGetOverview', 'opsListAlerts', 'opsCreateOrganization'])
      expect(seen.slice(0, operations.length), id).toContain(
        `${id} ${id === 'opsCreateOrganization' ? 201 : 200}`,
      );
  }, 120_000);
});
