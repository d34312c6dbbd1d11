import { CreateShipmentRequestSchema, ShipmentSchema, TrackingSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { createApp } from '../app';
import { client, useTestServer } from '../../test/harness';

const stack = useTestServer();

/** Every route the application serves, as OpenAPI writes paths (`:id` becomes `{id}`). */
function servedRoutes(): string[] {
  const app = createApp({
    config: { merchantRequestsPerMinute: 1, opsConsoleDir: '/nonexistent' },
  } as never);
  const routes: string[] = [];
  for (const middleware of app.middleware) {
    const router = (middleware as { router?: { stack: { path: string; methods: string[] }[] } })
      .router;
    for (const layer of router?.stack ?? []) {
      for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
        routes.push(`${method.toLowerCase()} ${layer.path.replace(/:(\w+)/g, '{$1}')}`);
      }
    }
  }
  return routes;
}

describe('GET /openapi.json', () => {
  it('documents every route the server serves, in OpenAPI 3.1', async () => {
    const answer = await client(stack.url).get('/openapi.json');
    expect(answer.status).toBe(200);
    const doc = answer.body;
    expect(doc.openapi).toBe('3.1.0');
    const documented = Object.entries(doc.paths as Record<string, object>).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m} ${p}`),
    );
    // The recipient's page (/p/{token}) and its extension form are for people, no interface.
    const served = servedRoutes().filter(
      (r) => r !== 'get /openapi.json' && r !== 'get /p/{token}' && r !== 'post /p/{token}/extend',
    );
    // The spec's 8 terminal and 5 merchant routes, the terminal extensions (the live
    // link's log upload among them), the 3 of a locker on its own, the merchant platform's
    // 10 (bulk, events, webhook endpoints, sandbox), the operations interface's (7 of them
    // the link's), capacity's 3 (issue 27: the finder, cancel, extend) and its overflow's
    // 2 (a full station's alternatives, the reroute), and the field's
    // enrolment, enrolment codes, token rotation, updates and rollout (issue 26), and the
    // 3 of issue 27's shared doors.
    expect(served.length).toBe(93);
    expect(documented.sort()).toEqual(served.sort());
  });

  it('carries examples that the schemas themselves accept', async () => {
    const doc = (await client(stack.url).get('/openapi.json')).body;
    const schemas = doc.components.schemas;
    expect(
      CreateShipmentRequestSchema.safeParse(schemas.CreateShipmentRequest.example).success,
    ).toBe(true);
    expect(ShipmentSchema.safeParse(schemas.Shipment.example).success).toBe(true);
    expect(TrackingSchema.safeParse(schemas.Tracking.example).success).toBe(true);
    expect(schemas.Shipment.required).toEqual(
      expect.arrayContaining(['id', 'tracking_number', 'status', 'destination']),
    );
  });
});
