import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, waitFor, type TestStack } from '../../test/harness';

interface Received {
  authorization: string | undefined;
  form: URLSearchParams;
}

/** A stand-in for the SMS provider's API that fails the first `failures` requests. */
async function fakeProvider(failures: number) {
  const received: Received[] = [];
  let seen = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen++;
      if (seen <= failures) {
        res.writeHead(503).end();
        return;
      }
      received.push({ authorization: req.headers.authorization, form: new URLSearchParams(body) });
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"sid":"SM1"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, attempts: () => seen, close: () => new Promise((r) => server.close(r)) };
}

let stack: TestStack;
let provider: Awaited<ReturnType<typeof fakeProvider>>;
beforeAll(async () => {
  provider = await fakeProvider(2);
  stack = await startTestServer({
    smsTransport: 'twilio',
    twilio: {
      accountSid: 'AC123',
      authToken: 'secret-token',
      from: '+38349000000',
      baseUrl: provider.url,
    },
  });
});
afterAll(async () => {
  await stack.close();
  await provider.close();
});

describe('SMS outbox', () => {
  it('never fails the deposit when the provider fails, and delivers once it recovers', async () => {
    const scene = await stack.scene('1:S');
    const parcel = await stack.shipment(scene.org.id, scene.station.id, { language: 'tr' });
    const answer = await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
    });
    expect(answer.status).toBe(200);

    // Each failed attempt is waited for to its end (a row still in flight would write its
    // backoff over ours), then its backoff is skipped rather than slept through.
    for (let attempt = 1; attempt <= 2; attempt++) {
      await stack.server.deliverNow();
      const [row] =
        await stack.sql`select attempts, last_error from outbox where channel = 'sms' and shipment_id = ${parcel.id}`;
      expect(row).toMatchObject({ attempts: attempt, last_error: expect.any(String) });
      await stack.sql`update outbox set next_attempt_at = now() where shipment_id = ${parcel.id} and delivered_at is null`;
    }
    await stack.server.deliverNow();
    const delivered = await waitFor(() => provider.received[0]);
    expect(delivered.authorization).toBe(
      'Basic ' + Buffer.from('AC123:secret-token').toString('base64'),
    );
    expect(delivered.form.get('To')).toBe(parcel.recipient_phone);
    expect(delivered.form.get('From')).toBe('+38349000000');
    expect(delivered.form.get('Body')).toMatch(/ Kod: \d{8}\./);
    const [row] = await waitFor(async () => {
      const rows =
        await stack.sql`select attempts, delivered_at from outbox where channel = 'sms' and shipment_id = ${parcel.id}`;
      return rows[0]?.delivered_at ? rows : undefined;
    });
    expect(row?.attempts).toBe(3);
    expect(provider.received).toHaveLength(1);
  });
});
