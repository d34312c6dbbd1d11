import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { BulkCreateResultSchema, ProblemSchema, ShipmentSchema } from '@locker/shared';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createSandboxOrganization } from '../src/admin/sandbox';
import { REPO_ROOT } from '../src/config';
import { client, useTestServer, waitFor } from './harness';
import { useWebhookReceiver } from './receiver';

// The examples of docs/merchant-api.md, run as written: each shell block through bash and
// curl against a real server, each JSON block reproduced and compared, each JavaScript
// block run with a stand-in for the shop's own database.

const run = promisify(execFile);
const stack = useTestServer();
const hook = useWebhookReceiver();

interface Block {
  lang: string;
  code: string;
  line: number;
}

function codeBlocks(file: string): Block[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: Block[] = [];
  let open: { lang: string; indent: number; line: number; body: string[] } | undefined;
  lines.forEach((text, i) => {
    const fence = /^(\s*)```(\w*)\s*$/.exec(text);
    if (fence && !open) open = { lang: fence[2]!, indent: fence[1]!.length, line: i + 1, body: [] };
    else if (fence && open) {
      const { lang, indent, line, body } = open;
      blocks.push({ lang, line, code: body.map((l) => l.slice(indent)).join('\n') });
      open = undefined;
    } else open?.body.push(text);
  });
  return blocks;
}

const blocks = codeBlocks(path.join(REPO_ROOT, 'docs/merchant-api.md'));

/** Whether `actual` matches the documented value, where "…" stands for anything. */
function matches(documented: unknown, actual: unknown): boolean {
  if (documented === '…') return true;
  if (Array.isArray(documented))
    return (
      Array.isArray(actual) &&
      documented.length === actual.length &&
      documented.every((d, i) => matches(d, actual[i]))
    );
  if (documented && typeof documented === 'object') {
    const entries = Object.entries(documented);
    if (entries.length === 1 && entries[0]![0] === '…')
      return !!actual && typeof actual === 'object';
    return (
      !!actual &&
      typeof actual === 'object' &&
      Object.keys(actual).sort().join() === Object.keys(documented).sort().join() &&
      entries.every(([k, v]) => matches(v, (actual as Record<string, unknown>)[k]))
    );
  }
  return documented === actual;
}

async function scene() {
  const org = await stack.org();
  const station = await stack.station('1:S,2:M,3:L');
  const box = await createSandboxOrganization(stack.sql, `Sandbox ${Math.random()}`);
  const api = client(stack.url, org.apiKey);
  return { org, station, box, api };
}

/** A shell block as printed, with the reader's placeholders filled in. */
async function shell(block: Block, env: Record<string, string>, station: string) {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'doc-')), 'out');
  const line = block.code
    .replaceAll('http://localhost:8080', stack.url)
    .replaceAll('<station id>', station)
    // The printer is this test: what would go to it is kept.
    .replace('| nc printer.local 9100', `> ${out}`);
  const { stdout } = await run('bash', ['-c', line], { env: { ...process.env, ...env } });
  return { stdout, printed: () => readFileSync(out, 'utf8') };
}

describe('docs/merchant-api.md, as written', () => {
  it('has the examples this file runs, each of them', () => {
    expect(blocks.map((b) => b.lang)).toEqual([
      'sh',
      'json',
      'json',
      'sh',
      'sh',
      'sh',
      'sh',
      'js',
      'js',
    ]);
  });

  it('runs its shell examples with curl against a real server', async () => {
    const { org, station, box } = await scene();
    const sh = blocks.filter((b) => b.lang === 'sh');
    const env = { API_KEY: org.apiKey, SANDBOX_KEY: box.apiKey };

    // Creating a shipment, and the worked integration's step 1: the same idempotency key.
    const created = ShipmentSchema.parse(JSON.parse((await shell(sh[0]!, env, station.id)).stdout));
    expect(created).toMatchObject({ status: 'booked', merchant_order_reference: '10045' });
    const again = ShipmentSchema.parse(JSON.parse((await shell(sh[2]!, env, station.id)).stdout));
    expect(again.id).toBe(created.id);

    // The sandbox step, on a sandbox shipment.
    const sandboxShipment = await client(stack.url, box.apiKey).post('/api/v1/shipments', {
      destination_station_id: box.stations[0]!.id,
      parcel_size: 'S',
      recipient_name: 'Test Recipient',
      recipient_phone: '+38344123456',
      recipient_language: 'en',
    });
    const advanced = await shell(sh[1]!, { ...env, ID: sandboxShipment.body.id }, station.id);
    expect(ShipmentSchema.parse(JSON.parse(advanced.stdout)).status).toBe('ready_for_pickup');

    // The label, to the printer: one ZPL label with the tracking number's barcode.
    const label = (await shell(sh[3]!, { ...env, ID: created.id }, station.id)).printed();
    expect(label.startsWith('^XA')).toBe(true);
    expect(label).toContain(`^FD${created.tracking_number}^FS`);

    // Subscribing: {"id":…,"secret":"whsec_…"}.
    const subscribed = JSON.parse((await shell(sh[4]!, env, station.id)).stdout);
    expect(subscribed).toMatchObject({
      id: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    });
  });

  it('answers what its JSON examples show', async () => {
    const { station, api } = await scene();
    const [problem, bulk] = blocks.filter((b) => b.lang === 'json').map((b) => JSON.parse(b.code));
    // The 422 of a shipment with a size and a phone number that are not.
    const refused = await api.post('/api/v1/shipments', {
      destination_station_id: station.id,
      parcel_size: 'XXL',
      recipient_name: 'Drita Gashi',
      recipient_phone: '+3834412',
      recipient_language: 'sq',
    });
    expect(refused.status).toBe(422);
    ProblemSchema.parse(refused.body);
    expect(matches(problem, refused.body), JSON.stringify(refused.body)).toBe(true);
    // A bulk call with one good item and one bad phone number.
    const item = {
      destination_station_id: station.id,
      parcel_size: 'S',
      recipient_name: 'Drita Gashi',
      recipient_phone: '+38344123456',
      recipient_language: 'sq',
    };
    const answer = await api.post('/api/v1/shipments/bulk', {
      shipments: [
        { ...item, idempotency_key: 'order-1' },
        { ...item, recipient_phone: '+3834412' },
      ],
    });
    expect(answer.status).toBe(200);
    BulkCreateResultSchema.parse(answer.body);
    expect(matches(bulk, answer.body), JSON.stringify(answer.body)).toBe(true);
  });

  it('verifies and applies a real webhook with its JavaScript, and catches up with the events API', async () => {
    const s = await stack.scene('1:S');
    const api = client(stack.url, s.org.apiKey);
    const { secret } = (await api.post('/api/v1/webhooks', { url: hook.url })).body;
    const { shipment } = await s.deposit();
    const delivery = await waitFor(() => hook.eventsOf(shipment.id)[0]);
    const [verify, catchUp] = blocks.filter((b) => b.lang === 'js');

    // Step 4 as written, its imports and exports made plain; `db` is the shop's.
    const applied: [string, { id: string }][] = [];
    const remembered = new Set<string>();
    const db = {
      seen: (id: string) => Promise.resolve(remembered.has(id)),
      apply: (type: string, s: { id: string }) => Promise.resolve(void applied.push([type, s])),
      remember: (id: string) => Promise.resolve(void remembered.add(id)),
      lastEventId: () => Promise.resolve(undefined),
    };
    // eslint-disable-next-line @typescript-eslint/require-await -- only its constructor is used
    const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
      ...args: string[]
    ) => (...values: unknown[]) => Promise<unknown>;
    const handlerCode = `${verify!.code
      .replace(/^import .*$/m, '')
      .replace('export async function', 'async function')}\nreturn onLockerWebhook;`;
    const onLockerWebhook = (await new AsyncFunction('Webhook', 'process', 'db', handlerCode)(
      Webhook,
      { env: { LOCKER_WEBHOOK_SECRET: secret } },
      db,
    )) as (raw: string, headers: Record<string, string>) => Promise<void>;
    await onLockerWebhook(delivery.raw, delivery.headers);
    await onLockerWebhook(delivery.raw, delivery.headers); // a retry: applied once
    expect(applied).toEqual([
      ['shipment.ready_for_pickup', expect.objectContaining({ id: shipment.id })],
    ]);
    await expect(
      onLockerWebhook(delivery.raw.replace('ready_for_pickup', 'collected'), delivery.headers),
    ).rejects.toThrow();

    // Step 5 as written: every event of the organization, oldest first.
    const seen: { id: string; type: string }[] = [];
    await new AsyncFunction('db', 'BASE', 'API_KEY', 'onLockerEvent', catchUp!.code)(
      db,
      stack.url,
      s.org.apiKey,
      (event: { id: string; type: string }) => Promise.resolve(void seen.push(event)),
    );
    const stored = await stack.sql<{ id: string }[]>`
      select id from events where organization_id = ${s.org.id} order by xid, seq`;
    expect(seen.map((e) => e.id)).toEqual(stored.map((e) => e.id));
    expect(seen.map((e) => e.type)).toContain('shipment.ready_for_pickup');
  });
});
