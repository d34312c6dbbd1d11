import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxOrganization } from '../src/admin/sandbox';
import { openApiDocument } from '../src/openapi/document';
import { client, useTestServer } from './harness';
import { bodyNear, header, nastyNumber, nastyString, pathSegment } from './fuzzParts';

// Property-based requests against every endpoint of both interfaces. Whatever is sent:
// never a 5xx; every status one the OpenAPI document gives the operation; every 4xx is
// problem+json carrying its correlation id and changes nothing.
// FUZZ_RUNS raises the number of requests per endpoint (the report's figure used 1000).
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);

const stack = useTestServer({
  merchantRequestsPerMinute: 10_000_000,
  offlineAfterSeconds: 86_400,
  // No verifier worker: it would write the verifiers of the fuzzer's deposits into
  // `shipments` between a request's two digests (verifierWorker.test.ts tests it).
  verifierConcurrency: 0,
});
let terminalToken: string;
let apiKey: string;
let sandboxKey: string;
const valid: Record<string, string> = {};
const tally = { requests: 0, byStatus: new Map<number, number>(), endpoints: new Set<string>() };

beforeAll(async () => {
  const scene = await stack.scene('1:S,2:M,3:L,4:XL,5:S,6:S');
  terminalToken = scene.terminal.token;
  apiKey = scene.org.apiKey;
  const booked = await stack.shipment(scene.org.id, scene.station.id);
  const { shipment } = await scene.deposit();
  const collected = await scene.collected();
  Object.assign(valid, {
    courierNo: scene.courier.number,
    bookedTracking: booked.tracking_number,
    readyTracking: shipment.tracking_number,
    readyId: shipment.id,
    collectedTracking: collected.tracking_number,
    stationId: scene.station.id,
  });
  const api = client(stack.url, apiKey);
  const endpoint = await api.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook' });
  const [event] = await stack.sql<{ id: string }[]>`
    select id from events where organization_id = ${scene.org.id} limit 1`;
  const box = await createSandboxOrganization(stack.sql, 'Fuzz sandbox');
  sandboxKey = box.apiKey;
  const boxShipment = await client(stack.url, box.apiKey).post('/api/v1/shipments', {
    destination_station_id: box.stations[0]!.id,
    parcel_size: 'S',
    recipient_name: 'Test Recipient',
    recipient_phone: '+38344123456',
    recipient_language: 'en',
  });
  Object.assign(valid, {
    endpointId: endpoint.body.id,
    eventId: event!.id,
    sandboxShipmentId: boxShipment.body.id,
  });
});
afterAll(() => {
  console.log(
    `fuzz: ${tally.requests} requests over ${tally.endpoints.size} endpoints; statuses ${JSON.stringify(Object.fromEntries([...tally.byStatus].sort(([a], [b]) => a - b)))}`,
  );
});

/** What a request may change: every row of the domain, none of the bookkeeping. */
async function digest(): Promise<string> {
  const [row] = await stack.sql<{ d: string }[]>`
    select md5(concat_ws('|',
      (select string_agg(t::text, ',' order by t::text) from shipments t),
      (select string_agg(t::text, ',' order by t::text) from door_occupancy t),
      (select string_agg(t::text, ',' order by t::text) from door_shares t),
      (select string_agg(t::text, ',' order by t::text) from doors t),
      (select string_agg(t::text, ',' order by t::text) from returns t),
      (select string_agg(t::text, ',' order by t::text) from tracking_events t),
      (select string_agg(t::text, ',' order by t::text) from alerts t),
      (select string_agg(t::text, ',' order by t::text) from idempotency_keys t),
      (select string_agg(id::text, ',' order by id) from outbox),
      (select string_agg(t::text, ',' order by t::text) from webhook_endpoints t),
      (select string_agg(id::text, ',' order by id) from events),
      (select string_agg(concat_ws(' ', id, status, revoked_at, station_id), ',' order by id) from terminals)
    )) as d`;
  return row!.d;
}

const occurredAt = () => new Date(Date.now() - 60_000).toISOString();

interface Target {
  name: string;
  /** The OpenAPI operation, `method path` as the document writes it; none for the document itself. */
  operation?: string;
  request: fc.Arbitrary<{
    method: string;
    path: string;
    body?: string;
    headers?: Record<string, string>;
  }>;
  auth: 'terminal' | 'merchant' | 'sandbox' | 'none';
}

const post = (path: string, template: () => Record<string, unknown>) =>
  fc
    .constant(null)
    .chain(() => bodyNear(template()))
    .map((body) => ({ method: 'POST', path, body }));
const get = (path: fc.Arbitrary<string>) => path.map((p) => ({ method: 'GET', path: p }));
const idLike = () => fc.oneof(fc.constant(valid.readyId!), fc.uuid(), nastyString);
const trackingLike = () =>
  fc.oneof(fc.constant(valid.readyTracking!), fc.constant(valid.collectedTracking!), nastyString);

const targets = (): Target[] => [
  {
    name: 'GET /terminal/v1/cabinet',
    operation: 'get /terminal/v1/cabinet',
    auth: 'terminal',
    request: fc.option(nastyString).map((etag) => ({
      method: 'GET',
      path: '/terminal/v1/cabinet',
      headers: header('if-none-match', etag),
    })),
  },
  {
    name: 'POST /pickup',
    operation: 'post /terminal/v1/pickup',
    auth: 'terminal',
    request: post('/terminal/v1/pickup', () => ({ code: '12345678' })),
  },
  {
    name: 'POST /door/confirm',
    operation: 'post /terminal/v1/door/confirm',
    auth: 'terminal',
    request: post('/terminal/v1/door/confirm', () => ({
      shipmentId: valid.readyId,
      collected: false,
      occurred_at: occurredAt(),
    })),
  },
  {
    name: 'POST /courier/verify',
    operation: 'post /terminal/v1/courier/verify',
    auth: 'terminal',
    request: post('/terminal/v1/courier/verify', () => ({ courierNo: valid.courierNo })),
  },
  {
    name: 'POST /deposit',
    operation: 'post /terminal/v1/deposit',
    auth: 'terminal',
    request: post('/terminal/v1/deposit', () => ({
      courierNo: valid.courierNo,
      trackingNumber: valid.bookedTracking,
      occurred_at: occurredAt(),
    })),
  },
  {
    name: 'POST /return',
    operation: 'post /terminal/v1/return',
    auth: 'terminal',
    request: post('/terminal/v1/return', () => ({ trackingNumber: valid.collectedTracking })),
  },
  {
    name: 'POST /return/confirm',
    operation: 'post /terminal/v1/return/confirm',
    auth: 'terminal',
    request: post('/terminal/v1/return/confirm', () => ({
      returnId: valid.readyId,
      deposited: false,
      occurred_at: occurredAt(),
    })),
  },
  {
    name: 'POST /door/fault',
    operation: 'post /terminal/v1/door/fault',
    auth: 'terminal',
    request: post('/terminal/v1/door/fault', () => ({ position: 9 })),
  },
  {
    name: 'POST /deposit/undo',
    operation: 'post /terminal/v1/deposit/undo',
    auth: 'terminal',
    request: post('/terminal/v1/deposit/undo', () => ({
      courierNo: 'nobody',
      trackingNumber: valid.readyTracking,
      occurred_at: occurredAt(),
    })),
  },
  {
    name: 'POST /deposit/shared/check',
    operation: 'post /terminal/v1/deposit/shared/check',
    auth: 'terminal',
    request: post('/terminal/v1/deposit/shared/check', () => ({
      courierNo: valid.courierNo,
      trackingNumber: valid.bookedTracking,
      door: 1,
    })),
  },
  {
    name: 'POST /deposit/shared',
    operation: 'post /terminal/v1/deposit/shared',
    auth: 'terminal',
    request: post('/terminal/v1/deposit/shared', () => ({
      courierNo: 'nobody',
      trackingNumber: valid.bookedTracking,
      door: 1,
      occurred_at: occurredAt(),
    })),
  },
  {
    name: 'POST /pickup/door-parcels',
    operation: 'post /terminal/v1/pickup/door-parcels',
    auth: 'terminal',
    request: post('/terminal/v1/pickup/door-parcels', () => ({ shipmentId: valid.readyId })),
  },
  {
    name: 'POST /deposit/alternatives',
    operation: 'post /terminal/v1/deposit/alternatives',
    auth: 'terminal',
    request: post('/terminal/v1/deposit/alternatives', () => ({
      courierNo: valid.courierNo,
      trackingNumber: valid.bookedTracking,
    })),
  },
  {
    name: 'POST /deposit/reroute',
    operation: 'post /terminal/v1/deposit/reroute',
    auth: 'terminal',
    request: post('/terminal/v1/deposit/reroute', () => ({
      courierNo: valid.courierNo,
      trackingNumber: valid.bookedTracking,
      stationCode: 'NOWHERE-01',
    })),
  },
  {
    name: 'POST /courier/returns',
    operation: 'post /terminal/v1/courier/returns',
    auth: 'terminal',
    request: post('/terminal/v1/courier/returns', () => ({ courierNo: valid.courierNo })),
  },
  {
    name: 'POST /courier/returns/collected',
    operation: 'post /terminal/v1/courier/returns/collected',
    auth: 'terminal',
    request: post('/terminal/v1/courier/returns/collected', () => ({
      courierNo: valid.courierNo,
      trackingNumber: valid.readyTracking,
      occurred_at: occurredAt(),
    })),
  },
  {
    name: 'POST /doors/{door}/events',
    operation: 'post /terminal/v1/doors/{door}/events',
    auth: 'terminal',
    request: fc
      .tuple(
        fc.oneof(fc.constant('1'), fc.integer().map(String), nastyString),
        bodyNear({
          eventId: '6c5b4a39-2817-4f6e-9d5c-4b3a29180f7e',
          kind: 'found_open',
          itemPresent: true,
          visit: null,
        }),
      )
      .map(([door, body]) => ({
        method: 'POST',
        path: `/terminal/v1/doors/${pathSegment(door)}/events`,
        body,
      })),
  },
  {
    name: 'POST /cabinet/events',
    operation: 'post /terminal/v1/cabinet/events',
    auth: 'terminal',
    request: post('/terminal/v1/cabinet/events', () => ({
      eventId: '1e2d3c4b-5a69-4788-9a6b-5c4d3e2f1a0b',
      kind: 'board_changed',
      board: 0,
      positions: [1, 2],
      differences: ['firmware 1.3, commissioned with 1.2'],
    })),
  },
  {
    name: 'POST /enrol',
    operation: 'post /terminal/v1/enrol',
    auth: 'none',
    request: post('/terminal/v1/enrol', () => ({ code: '4821-0937-55' })),
  },
  {
    name: 'POST /credentials',
    operation: 'post /terminal/v1/credentials',
    auth: 'terminal',
    request: fc.option(bodyNear({})).map((body) => ({
      method: 'POST',
      path: '/terminal/v1/credentials',
      ...(body === null ? {} : { body }),
    })),
  },
  {
    name: 'GET /update',
    operation: 'get /terminal/v1/update',
    auth: 'terminal',
    request: get(fc.constant('/terminal/v1/update')),
  },
  {
    name: 'GET /update/bundle/{version}',
    operation: 'get /terminal/v1/update/bundle/{version}',
    auth: 'terminal',
    request: get(
      fc
        .oneof(fc.constant('2.4.0'), nastyString)
        .map((v) => `/terminal/v1/update/bundle/${pathSegment(v)}`),
    ),
  },
  {
    name: 'POST /update/report',
    operation: 'post /terminal/v1/update/report',
    auth: 'terminal',
    request: post('/terminal/v1/update/report', () => ({ version: '2.4.0', outcome: 'running' })),
  },
  {
    name: 'POST /heartbeat',
    operation: 'post /terminal/v1/heartbeat',
    auth: 'terminal',
    request: post('/terminal/v1/heartbeat', () => ({ appVersion: '1.0.0' })),
  },
  {
    name: 'GET /offline/pickups',
    operation: 'get /terminal/v1/offline/pickups',
    auth: 'terminal',
    request: fc.option(nastyString).map((etag) => ({
      method: 'GET',
      path: '/terminal/v1/offline/pickups',
      headers: header('if-none-match', etag),
    })),
  },
  {
    name: 'GET /offline/deposits',
    operation: 'get /terminal/v1/offline/deposits',
    auth: 'terminal',
    request: fc.option(nastyString).map((etag) => ({
      method: 'GET',
      path: '/terminal/v1/offline/deposits',
      headers: header('if-none-match', etag),
    })),
  },
  {
    name: 'POST /offline/deposit',
    operation: 'post /terminal/v1/offline/deposit',
    auth: 'terminal',
    // A parcel not expected here, into a door the station does not have: the conflict.
    request: post('/terminal/v1/offline/deposit', () => ({
      courierNo: valid.courierNo,
      trackingNumber: 'NOT-EXPECTED-HERE',
      door: 9,
      occurred_at: occurredAt(),
    })),
  },
  {
    // The live link's log upload: no `upload_logs` command was sent, so whatever the
    // command id and the body (gzip or not), nothing is kept.
    name: 'POST /link/logs/{commandId}',
    operation: 'post /terminal/v1/link/logs/{commandId}',
    auth: 'terminal',
    request: fc
      .tuple(
        fc.oneof(fc.uuid(), nastyString),
        fc.oneof(fc.string(), fc.constant('\x1f\x8b' + 'x'.repeat(30))),
        fc.constantFrom('application/gzip', 'application/json', 'text/plain'),
      )
      .map(([commandId, body, type]) => ({
        method: 'POST',
        path: `/terminal/v1/link/logs/${pathSegment(commandId)}`,
        body,
        headers: { 'content-type': type },
      })),
  },
  {
    name: 'POST /api/v1/shipments',
    operation: 'post /api/v1/shipments',
    auth: 'merchant',
    request: fc
      .tuple(
        post('/api/v1/shipments', () => ({
          destination_station_id: valid.stationId,
          parcel_size: 'S',
          recipient_name: 'Drita Gashi',
          recipient_phone: '+38344123456',
          recipient_language: 'sq',
          merchant_order_reference: 'R-1',
        })),
        fc.option(nastyString),
      )
      .map(([r, key]) => ({
        ...r,
        headers: header('idempotency-key', key),
      })),
  },
  {
    name: 'GET /api/v1/shipments',
    operation: 'get /api/v1/shipments',
    auth: 'merchant',
    request: get(
      fc
        .tuple(
          fc.option(nastyString),
          fc.option(fc.oneof(nastyString, nastyNumber.map(String))),
          fc.option(nastyString),
          fc.option(fc.bigInt({ min: 0n, max: 2n ** 70n })),
        )
        .map(([cursor, limit, status, micros]) => {
          const query = new URLSearchParams();
          if (cursor !== null) query.set('cursor', cursor.replace(/[\ud800-\udfff]/g, ''));
          if (micros !== null)
            query.set('cursor', Buffer.from(`${micros}.${valid.readyId}`).toString('base64url'));
          if (limit !== null) query.set('limit', limit.replace(/[\ud800-\udfff]/g, ''));
          if (status !== null) query.set('status', status.replace(/[\ud800-\udfff]/g, ''));
          return `/api/v1/shipments?${query.toString()}`;
        }),
    ),
  },
  {
    name: 'GET /api/v1/shipments/{id}',
    operation: 'get /api/v1/shipments/{id}',
    auth: 'merchant',
    request: get(idLike().map((id) => `/api/v1/shipments/${pathSegment(id)}`)),
  },
  {
    name: 'GET /api/v1/shipments/{id}/label',
    operation: 'get /api/v1/shipments/{id}/label',
    auth: 'merchant',
    request: get(idLike().map((id) => `/api/v1/shipments/${pathSegment(id)}/label`)),
  },
  {
    name: 'GET /api/v1/track/{trackingNumber}',
    operation: 'get /api/v1/track/{trackingNumber}',
    auth: 'merchant',
    request: get(trackingLike().map((t) => `/api/v1/track/${pathSegment(t)}`)),
  },
  {
    name: 'POST /api/v1/shipments/bulk',
    operation: 'post /api/v1/shipments/bulk',
    auth: 'merchant',
    request: post('/api/v1/shipments/bulk', () => ({
      shipments: [
        {
          destination_station_id: valid.stationId,
          parcel_size: 'S',
          recipient_name: 'Drita Gashi',
          recipient_phone: '+38344123456',
          recipient_language: 'sq',
          idempotency_key: 'bulk-1',
        },
      ],
    })),
  },
  {
    name: 'GET /api/v1/events',
    operation: 'get /api/v1/events',
    auth: 'merchant',
    request: get(
      fc
        .tuple(
          fc.option(fc.oneof(fc.constant(valid.eventId!), fc.uuid(), nastyString)),
          fc.option(fc.oneof(nastyString, nastyNumber.map(String))),
          fc.option(fc.oneof(fc.constant('shipment.collected'), nastyString)),
        )
        .map(([after, limit, type]) => {
          const query = new URLSearchParams();
          const clean = (v: string) => v.replace(/[\ud800-\udfff]/g, '');
          if (after !== null) query.set('after', clean(after));
          if (limit !== null) query.set('limit', clean(limit));
          if (type !== null) query.set('type', clean(type));
          return `/api/v1/events?${query.toString()}`;
        }),
    ),
  },
  {
    name: 'POST /api/v1/events/{id}/redeliver',
    operation: 'post /api/v1/events/{id}/redeliver',
    auth: 'merchant',
    request: fc
      .oneof(fc.constant(valid.eventId!), fc.uuid(), nastyString)
      .map((id) => ({ method: 'POST', path: `/api/v1/events/${pathSegment(id)}/redeliver` })),
  },
  {
    name: 'POST /api/v1/webhooks',
    operation: 'post /api/v1/webhooks',
    auth: 'merchant',
    request: post('/api/v1/webhooks', () => ({
      url: 'http://127.0.0.1:9/hook',
      description: 'fuzz',
    })),
  },
  {
    name: 'GET /api/v1/webhooks',
    operation: 'get /api/v1/webhooks',
    auth: 'merchant',
    request: get(fc.constant('/api/v1/webhooks')),
  },
  {
    name: 'POST /api/v1/webhooks/{id}/rotate-secret',
    operation: 'post /api/v1/webhooks/{id}/rotate-secret',
    auth: 'merchant',
    request: fc
      .tuple(
        fc.oneof(fc.constant(valid.endpointId!), fc.uuid(), nastyString),
        bodyNear({ rollover_hours: 1 }),
      )
      .map(([id, body]) => ({
        method: 'POST',
        path: `/api/v1/webhooks/${pathSegment(id)}/rotate-secret`,
        body,
      })),
  },
  {
    name: 'POST /api/v1/webhooks/{id}/enable',
    operation: 'post /api/v1/webhooks/{id}/enable',
    auth: 'merchant',
    request: fc
      .oneof(fc.constant(valid.endpointId!), fc.uuid(), nastyString)
      .map((id) => ({ method: 'POST', path: `/api/v1/webhooks/${pathSegment(id)}/enable` })),
  },
  {
    name: 'GET /api/v1/sandbox/stations',
    operation: 'get /api/v1/sandbox/stations',
    auth: 'sandbox',
    request: get(fc.constant('/api/v1/sandbox/stations')),
  },
  {
    name: 'POST /api/v1/sandbox/shipments/{id}/advance',
    operation: 'post /api/v1/sandbox/shipments/{id}/advance',
    auth: 'sandbox',
    request: fc
      .tuple(
        fc.oneof(fc.constant(valid.sandboxShipmentId!), fc.uuid(), nastyString),
        bodyNear({ action: 'deposit' }),
      )
      .map(([id, body]) => ({
        method: 'POST',
        path: `/api/v1/sandbox/shipments/${pathSegment(id)}/advance`,
        body,
      })),
  },
  // Last: it deletes the endpoint the ones above use.
  {
    name: 'DELETE /api/v1/webhooks/{id}',
    operation: 'delete /api/v1/webhooks/{id}',
    auth: 'merchant',
    request: fc
      .oneof(fc.uuid(), nastyString, fc.constant(valid.endpointId!))
      .map((id) => ({ method: 'DELETE', path: `/api/v1/webhooks/${pathSegment(id)}` })),
  },
  {
    name: 'GET /api/v1/stations',
    operation: 'get /api/v1/stations',
    auth: 'merchant',
    request: get(
      fc
        .tuple(
          fc.option(fc.oneof(fc.constant('42.6629,21.1655'), nastyString)),
          fc.option(fc.oneof(fc.constant('M'), nastyString)),
          fc.option(fc.oneof(fc.constant('2'), nastyString)),
          fc.option(nastyString),
        )
        .map(([near, size, limit, cursor]) => {
          const query = new URLSearchParams();
          const clean = (v: string) => v.replace(/[\ud800-\udfff]/g, '');
          if (near !== null) query.set('near', clean(near));
          if (size !== null) query.set('size', clean(size));
          if (limit !== null) query.set('limit', clean(limit));
          if (cursor !== null) query.set('cursor', clean(cursor));
          return `/api/v1/stations?${query.toString()}`;
        }),
    ),
  },
  {
    name: 'POST /api/v1/shipments/{id}/cancel',
    operation: 'post /api/v1/shipments/{id}/cancel',
    auth: 'merchant',
    request: idLike().map((id) => ({
      method: 'POST',
      path: `/api/v1/shipments/${pathSegment(id)}/cancel`,
    })),
  },
  {
    name: 'POST /api/v1/shipments/{id}/extend',
    operation: 'post /api/v1/shipments/{id}/extend',
    auth: 'merchant',
    request: idLike().map((id) => ({
      method: 'POST',
      path: `/api/v1/shipments/${pathSegment(id)}/extend`,
    })),
  },
  { name: 'GET /openapi.json', auth: 'none', request: get(fc.constant('/openapi.json')) },
];

type OpenApi = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
const doc = openApiDocument() as unknown as OpenApi;

describe('fuzzing every endpoint', () => {
  it('has a target for every terminal and merchant operation of the OpenAPI document', () => {
    // Every operation of the terminal and merchant interfaces; the operations interface
    // (/ops/v1, signed-in operators with a second factor) has its own: opsFuzz.test.ts.
    const documented = Object.entries(doc.paths)
      .filter(([path]) => !path.startsWith('/ops/'))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
    const fuzzed = targets().flatMap((t) => (t.operation ? [t.operation] : []));
    expect(fuzzed.sort()).toEqual(documented.sort());
  });

  it('never answers 5xx; every 4xx is problem+json with its correlation id and changes nothing', async () => {
    for (const target of targets()) {
      await fc.assert(
        fc.asyncProperty(target.request, async (request) => {
          // Limits would answer 429 before the handler sees the input: start each fresh.
          await stack.sql`delete from rate_limit_windows`;
          const before = await digest();
          const credential =
            target.auth === 'terminal'
              ? terminalToken
              : target.auth === 'merchant'
                ? apiKey
                : target.auth === 'sandbox'
                  ? sandboxKey
                  : undefined;
          const response = await fetch(stack.url + request.path, {
            method: request.method,
            headers: {
              ...(credential ? { authorization: `Bearer ${credential}` } : {}),
              ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
              ...request.headers,
            },
            body: request.body,
          });
          const text = await response.text();
          tally.requests++;
          tally.endpoints.add(target.name);
          tally.byStatus.set(response.status, (tally.byStatus.get(response.status) ?? 0) + 1);
          const context = `${target.name} ${request.path} ${JSON.stringify(request.body)?.slice(0, 300)} → ${response.status} ${text.slice(0, 300)}`;
          expect(response.status, context).toBeLessThan(500);
          if (target.operation) {
            const [method, path] = target.operation.split(' ') as [string, string];
            const documented = Object.keys(doc.paths[path]![method]!.responses);
            expect(documented, `${context}: undocumented status`).toContain(
              String(response.status),
            );
          }
          if (response.status < 400) return;
          expect(response.headers.get('content-type'), context).toBe('application/problem+json');
          const problem = JSON.parse(text) as { correlation_id?: string; status?: number };
          expect(problem.status, context).toBe(response.status);
          expect(problem.correlation_id, context).toBe(response.headers.get('x-correlation-id'));
          // The spec's one 4xx that records something: a return whose door is not free
          // stays started, so the customer's retry resumes it ("Parcel eligible for return").
          // And a deposit the kiosk made on its own that the service cannot record: the
          // conflict is alerted and its door taken out of service (terminal-extensions.md).
          if (
            !(target.name === 'POST /return' && response.status === 409) &&
            !(target.name === 'POST /offline/deposit' && response.status === 404)
          ) {
            expect(await digest(), context).toBe(before);
          }
        }),
        { numRuns: RUNS },
      );
    }
    expect(tally.byStatus.get(500) ?? 0).toBe(0);
  }, 600_000);
});
