import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';

export interface Delivery {
  headers: Record<string, string>;
  raw: string;
  at: number;
}

export type Answer = { status: number; headers?: Record<string, string> } | 'hang';

/**
 * A merchant's webhook endpoint on loopback. It records what it accepts (2xx) and answers
 * whatever `state.answer` says, so a test can make it fail, hang or turn people away.
 */
export async function webhookReceiver() {
  const deliveries: Delivery[] = [];
  let seen = 0;
  const state: { answer: Answer } = { answer: { status: 204 } };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      seen++;
      const answer = state.answer;
      if (answer === 'hang') return;
      if (answer.status >= 200 && answer.status < 300) {
        const headers = Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, String(v)]),
        );
        deliveries.push({ headers, raw, at: Date.now() });
      }
      res.writeHead(answer.status, answer.headers ?? {}).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    deliveries,
    state,
    attempts: () => seen,
    /** Deliveries whose event is about `shipmentId`, parsed, in arrival order. */
    eventsOf: (shipmentId: string) =>
      deliveries
        .map((d) => ({ ...d, event: JSON.parse(d.raw) }))
        .filter((d) => d.event.data.shipment.id === shipmentId),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  };
}
export type WebhookReceiver = Awaited<ReturnType<typeof webhookReceiver>>;

/**
 * A webhook receiver for a whole test file: listening before the file's first test
 * (before any `beforeAll` registered after this call), closed after its last. The object
 * answered is filled in once it listens.
 */
export function useWebhookReceiver(): WebhookReceiver {
  const hook = {} as WebhookReceiver;
  beforeAll(async () => {
    Object.assign(hook, await webhookReceiver());
  });
  afterAll(async () => {
    if ('close' in hook) await hook.close();
  });
  return hook;
}

/**
 * Loopback HTTP servers a test makes (a provider, a receiver), each closed with its kept
 * connections after the test.
 */
export function loopbackServers() {
  const open: http.Server[] = [];
  afterEach(async () => {
    for (const server of open.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  return async (handler: http.RequestListener) => {
    const server = http.createServer(handler);
    open.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
}
