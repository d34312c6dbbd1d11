import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxOrganization } from '../admin/sandbox';
import {
  client,
  startTestServer,
  useTestServer,
  waitFor,
  type TestStack,
} from '../../test/harness';

// Every final state of an SMS row keeps its text without the pickup code: sent, set aside
// for a sandbox, cancelled by an undo, given up after the last attempt.

const CODE = /(?<![0-9A-Za-z_])[0-9]{8}(?![0-9A-Za-z_])/;

interface SmsRow {
  payload: { text: string; carriesCode?: boolean };
  delivered_at: Date | null;
  failed_at: Date | null;
  last_error: string | null;
  attempts: number;
}

const smsRows = (stack: TestStack, shipmentId: string) =>
  stack.sql<SmsRow[]>`
    select payload, delivered_at, failed_at, last_error, attempts from outbox
     where channel = 'sms' and shipment_id = ${shipmentId} order by id`;

/** The working stack: the file transport delivers every SMS. */
const stack = useTestServer();

/** A stack whose SMS provider never answers (a closed port): nothing is ever sent. */
let failing: TestStack;
beforeAll(async () => {
  failing = await startTestServer({
    smsTransport: 'twilio',
    twilio: {
      accountSid: 'AC1',
      authToken: 't',
      from: '+38349000000',
      baseUrl: 'http://127.0.0.1:9',
    },
  });
});
afterAll(() => failing?.close());

/** A parcel deposited on the failing stack: its code SMS is queued and not yet sent. */
async function depositOnFailing() {
  const station = await failing.station('1:S,2:S');
  const org = await failing.org();
  const terminal = await failing.terminal(station.code);
  const courier = await failing.courier();
  const shipment = await failing.shipment(org.id, station.id);
  const answer = await terminal.api.post('/terminal/v1/deposit', {
    courierNo: courier.number,
    trackingNumber: shipment.tracking_number,
  });
  expect(answer.status).toBe(200);
  const [pending] = await smsRows(failing, shipment.id);
  // The code is there while the row may still be sent: what the tests below see go.
  expect(pending?.payload.text).toMatch(CODE);
  expect(pending?.delivered_at).toBeNull();
  return { shipment, terminal, courier };
}

describe('pickup codes in stored SMS', () => {
  it('are redacted once sent', async () => {
    const scene = await stack.scene('1:S');
    const { shipment, code } = await scene.deposit();
    const [row] = await waitFor(async () => {
      const rows = await smsRows(stack, shipment.id);
      return rows[0]?.delivered_at ? rows : undefined;
    });
    expect(row!.payload.text).not.toContain(code);
    expect(row!.payload.text).not.toMatch(CODE);
    expect(row!.payload.text).toContain('********');
  });

  it('are never stored for a sandbox, whose SMS are set aside unsent', async () => {
    const org = await createSandboxOrganization(stack.sql, `Sandbox ${Math.random()}`);
    const api = client(stack.url, org.apiKey);
    const created = await api.post('/api/v1/shipments', {
      destination_station_id: org.stations[0]!.id,
      parcel_size: 'S',
      recipient_name: 'Test Recipient',
      recipient_phone: '+38344123456',
      recipient_language: 'en',
    });
    expect(created.status).toBe(201);
    const step = await api.post(`/api/v1/sandbox/shipments/${created.body.id}/advance`, {
      action: 'deposit',
    });
    expect(step.status).toBe(200);
    const rows = await smsRows(stack, created.body.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ delivered_at: null, last_error: 'sandbox: never sent' });
    expect(rows[0]!.failed_at).not.toBeNull();
    expect(rows[0]!.payload.text).toContain('Your pickup code is ********.');
    expect(rows[0]!.payload.text).not.toMatch(CODE);
  });

  it('are redacted when an undo cancels the code SMS', async () => {
    const { shipment, terminal, courier } = await depositOnFailing();
    const undone = await terminal.api.post('/terminal/v1/deposit/undo', {
      courierNo: courier.number,
      trackingNumber: shipment.tracking_number,
    });
    expect(undone.status).toBe(200);
    const rows = await smsRows(failing, shipment.id);
    const codeSms = rows.find((r) => r.payload.carriesCode);
    expect(codeSms?.last_error).toMatch(/^cancelled: /);
    expect(codeSms?.failed_at).not.toBeNull();
    expect(codeSms?.payload.text).toContain('********');
    for (const row of rows) expect(row.payload.text).not.toMatch(CODE);
  });

  it('are redacted when the last attempt gives up (a live code, never sent)', async () => {
    const { shipment } = await depositOnFailing();
    // The 99 attempts before are skipped, not waited for (about two days of backoff).
    await failing.sql`
      update outbox set attempts = 99, next_attempt_at = now()
       where shipment_id = ${shipment.id} and channel = 'sms'`;
    const [row] = await waitFor(async () => {
      await failing.server.deliverNow();
      const found = await smsRows(failing, shipment.id);
      return found[0]?.failed_at ? found : undefined;
    });
    expect(row!.attempts).toBe(100);
    expect(row!.delivered_at).toBeNull();
    expect(row!.last_error).toMatch(/ECONNREFUSED|SMS provider/);
    expect(row!.payload.text).toContain('********');
    expect(row!.payload.text).not.toMatch(CODE);
    // The parcel still awaits its recipient: the code on record is gone, the hash is not.
    const [parcel] = await failing.sql`
      select status, pickup_code_hash is not null as has_code from shipments where id = ${shipment.id}`;
    expect(parcel).toMatchObject({ status: 'ready_for_pickup', has_code: true });
  });
});
