import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  BulkCreateResultSchema,
  ProblemSchema,
  ShipmentSchema,
  StationFinderResultSchema,
  StorageSchema,
} from '@locker/shared';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createStation } from '../src/admin/commands';
import { setDoorHeights, setStationPlace } from '../src/admin/placeCommands';
import { createSandboxOrganization } from '../src/admin/sandbox';
import { REPO_ROOT } from '../src/config';
import { client, startTestServer, useTestServer, waitFor, type TestStack } from './harness';
import { useWebhookReceiver } from './receiver';

// The examples of docs/merchant-api.md, run as written: each shell block through bash and
// curl against a real server, each JSON block reproduced and compared, each JavaScript
// block run with a stand-in for the shop's own parts. Blocks are found by the heading
// they sit under, so a section moved or added elsewhere does not shift them.

const run = promisify(execFile);
const stack = useTestServer();
const hook = useWebhookReceiver();

interface Block {
  lang: string;
  code: string;
  line: number;
  /** The text of the nearest heading above it. */
  heading: string;
}

function codeBlocks(file: string): Block[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: Block[] = [];
  let heading = '';
  let open: { lang: string; indent: number; line: number; body: string[] } | undefined;
  lines.forEach((text, i) => {
    const fence = /^(\s*)```(\w*)\s*$/.exec(text);
    if (fence && !open) open = { lang: fence[2]!, indent: fence[1]!.length, line: i + 1, body: [] };
    else if (fence && open) {
      const { lang, indent, line, body } = open;
      blocks.push({ lang, line, heading, code: body.map((l) => l.slice(indent)).join('\n') });
      open = undefined;
    } else if (open) open.body.push(text);
    else if (/^#{1,6} /.test(text)) heading = text.replace(/^#+ /, '');
  });
  return blocks;
}

const blocks = codeBlocks(path.join(REPO_ROOT, 'docs/merchant-api.md'));

/** The `n`th block of `lang` under the heading `heading`. */
function block(heading: string, lang: string, n = 0): Block {
  const found = blocks.filter((b) => b.heading === heading && b.lang === lang)[n];
  if (!found) throw new Error(`no ${lang} block #${n} under "${heading}"`);
  return found;
}

const json = (heading: string, n = 0): unknown => JSON.parse(block(heading, 'json', n).code);

/** Whether `actual` matches the documented value, where "…" stands for anything. */
function matches(documented: unknown, actual: unknown): boolean {
  if (documented === '…') return true;
  // "whsec_…", "eyJuIjpb…": the text as shown, then anything.
  if (typeof documented === 'string' && documented.includes('…')) {
    const pattern = documented
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    return typeof actual === 'string' && new RegExp(`^${pattern}$`, 's').test(actual);
  }
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
async function shell(
  on: TestStack,
  block: Block,
  env: Record<string, string>,
  placeholders: Record<string, string> = {},
) {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'doc-')), 'out');
  let line = block.code.replaceAll('http://localhost:8080', on.url);
  for (const [placeholder, value] of Object.entries(placeholders))
    line = line.replaceAll(placeholder, value);
  // The printer is this test: what would go to it is kept.
  line = line.replace('| nc printer.local 9100', `> ${out}`);
  const { stdout } = await run('bash', ['-c', line], { env: { ...process.env, ...env } });
  return { stdout, printed: () => readFileSync(out, 'utf8') };
}

// eslint-disable-next-line @typescript-eslint/require-await -- only its constructor is used
const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
  ...args: string[]
) => (...values: unknown[]) => Promise<unknown>;

/**
 * Prishtina's lockers, placed as an operator places them (`pnpm admin station set-place`,
 * `door set-height`), on a server of their own: the finder lists every located station,
 * so each example that shows a list gets a town with only its own stations in it.
 * PR01 has S×3 (one within reach), M (within reach), L (held by a booking), XL; PR07
 * M×2 (one within reach) and L; PR06 an S and an M, the M held by a booking: room for an S,
 * full for an M parcel.
 */
async function inTown(test: (town: Awaited<ReturnType<typeof buildTown>>) => Promise<void>) {
  const on = await startTestServer();
  try {
    await test(await buildTown(on));
  } finally {
    await on.close();
  }
}

async function buildTown(on: TestStack) {
  const org = await on.org();
  const api = client(on.url, org.apiKey);
  const locate = async (
    code: string,
    name: string,
    doors: string,
    heights: string,
    place: Parameters<typeof setStationPlace>[2],
  ) => {
    const station = await createStation(on.sql, { code, name, doors });
    await setStationPlace(on.sql, code, place);
    await setDoorHeights(on.sql, code, heights);
    return station;
  };
  const book = (stationId: string, size: string, extra: Record<string, unknown> = {}) =>
    api.post('/api/v1/shipments', {
      destination_station_id: stationId,
      parcel_size: size,
      recipient_name: 'Drita Gashi',
      recipient_phone: '+38344123456',
      recipient_language: 'sq',
      ...extra,
    });
  const pr01 = await locate(
    'PR01',
    'Prishtina Center',
    '1:S,2:S,3:S,4:M,5:L,6:XL',
    '1:1000,2:1650,3:1650,4:900,5:1650,6:1650',
    {
      address: 'Rruga Agim Ramadani 15, 10000 Prishtinë',
      coordinates: '42.6661,21.1678',
      hours: 'mo-fr 08:00-20:00',
      stepFree: 'yes',
    },
  );
  const pr07 = await locate('PR07', 'Prishtina Dardania', '1:M,2:M,3:L', '1:1000,2:1650,3:1650', {
    address: 'Rruga Pashko Vasa 20, 10000 Prishtinë',
    coordinates: '42.6552,21.1530',
  });
  const pr06 = await locate('PR06', 'Prishtina Ulpiana', '1:S,2:M', '1:1650,2:1650', {
    coordinates: '42.6515,21.1620',
  });
  for (const [station, size] of [
    [pr01, 'L'],
    [pr06, 'M'],
  ] as const) {
    const held = await book(station.id, size, { reserve_door: true });
    if (held.status !== 201) throw new Error(`booking answered ${held.status}: ${held.text}`);
  }
  return { on, org, api, book, pr01, pr06, pr07 };
}

describe('docs/merchant-api.md, as written', () => {
  it('has the examples this file runs, each of them', () => {
    expect(blocks.map((b) => `${b.heading}: ${b.lang}`)).toEqual([
      'Creating a shipment: sh',
      'Validation errors: json',
      'Finding a locker with room: json',
      // Run as written in Chromium by test/picker/picker.test.ts.
      'The locker picker on a checkout page: html',
      'The locker picker on a checkout page: js',
      'The locker picker on a checkout page: js',
      'Reserving a door at booking: json',
      'Reserving a door at booking: json',
      'Extending storage: json',
      'Bulk create: json',
      'Sandbox: sh',
      'A worked integration: sh',
      'A worked integration: sh',
      'A worked integration: sh',
      'A worked integration: js',
      'A worked integration: js',
      'A worked checkout: finder, booking, cancel: sh',
      'A worked checkout: finder, booking, cancel: sh',
      'A worked checkout: finder, booking, cancel: js',
      'A worked checkout: finder, booking, cancel: sh',
    ]);
  });

  it('runs its shell examples with curl against a real server', async () => {
    const { org, station, box } = await scene();
    const env = { API_KEY: org.apiKey, SANDBOX_KEY: box.apiKey };
    const at = { '<station id>': station.id };
    const [create, label, subscribe] = [0, 1, 2].map((n) => block('A worked integration', 'sh', n));

    // Creating a shipment, and the worked integration's step 1: the same idempotency key.
    const created = ShipmentSchema.parse(
      JSON.parse((await shell(stack, block('Creating a shipment', 'sh'), env, at)).stdout),
    );
    expect(created).toMatchObject({ status: 'booked', merchant_order_reference: '10045' });
    const again = ShipmentSchema.parse(JSON.parse((await shell(stack, create!, env, at)).stdout));
    expect(again.id).toBe(created.id);

    // The sandbox step, on a sandbox shipment.
    const sandboxShipment = await client(stack.url, box.apiKey).post('/api/v1/shipments', {
      destination_station_id: box.stations[0]!.id,
      parcel_size: 'S',
      recipient_name: 'Test Recipient',
      recipient_phone: '+38344123456',
      recipient_language: 'en',
    });
    const advanced = await shell(stack, block('Sandbox', 'sh'), {
      ...env,
      ID: sandboxShipment.body.id,
    });
    expect(ShipmentSchema.parse(JSON.parse(advanced.stdout)).status).toBe('ready_for_pickup');

    // The label, to the printer: one ZPL label with the tracking number's barcode.
    const printed = (await shell(stack, label!, { ...env, ID: created.id })).printed();
    expect(printed.startsWith('^XA')).toBe(true);
    expect(printed).toContain(`^FD${created.tracking_number}^FS`);

    // Subscribing: {"id":…,"secret":"whsec_…"}.
    const subscribed = JSON.parse((await shell(stack, subscribe!, env)).stdout);
    expect(subscribed).toMatchObject({
      id: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    });
  });

  it('answers what its JSON examples show', async () => {
    const { station, api } = await scene();
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
    expect(matches(json('Validation errors'), refused.body), refused.text).toBe(true);
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
    expect(matches(json('Bulk create'), answer.body), answer.text).toBe(true);
  });

  it('finds the lockers its finder example shows, free doors and all', async () => {
    await inTown(async ({ api }) => {
      const found = await api.get('/api/v1/stations?near=42.6629,21.1655&limit=1');
      expect(found.status).toBe(200);
      StationFinderResultSchema.parse(found.body);
      expect(matches(json('Finding a locker with room'), found.body), found.text).toBe(true);
      expect(found.body.day).toBe(new Date().toISOString().slice(0, 10));
      // The cursor goes on to the station further away.
      const next = await api.get(
        `/api/v1/stations?near=42.6629,21.1655&limit=1&cursor=${found.body.next_cursor}`,
      );
      expect(next.body.data.map((s: { code: string }) => s.code)).toEqual(['PR06']);
    });
  });

  it('holds a door at booking as its reservation example shows, and refuses a full station with the problem shown', async () => {
    await inTown(async ({ on, book, pr01, pr06 }) => {
      // The fragment, checked against a real booking's JSON.
      const fragment = JSON.parse(`{${block('Reserving a door at booking', 'json').code}}`) as {
        reservation: unknown;
      };
      const held = await book(pr01.id, 'S', { reserve_door: true });
      expect(held.status).toBe(201);
      ShipmentSchema.parse(held.body);
      expect(matches(fragment.reservation, held.body.reservation), held.text).toBe(true);
      // "72 hours unless the operator set another".
      expect(Date.parse(held.body.reservation.held_until) - Date.parse(held.body.created_at)).toBe(
        72 * 3_600_000,
      );
      // "A booking without reserve_door is exactly as before: … no reservation field".
      const plain = await book(pr01.id, 'S');
      expect(plain.status).toBe(201);
      expect(plain.body).not.toHaveProperty('reservation');

      // PR01's doors an M fits taken too: the one station with room near PR06 is PR07.
      for (const size of ['M', 'XL'])
        expect((await book(pr01.id, size, { reserve_door: true })).status).toBe(201);
      const count = async () =>
        (await on.sql<{ n: number }[]>`select count(*)::int as n from shipments`)[0]!.n;
      const before = await count();
      const full = await book(pr06.id, 'M', { reserve_door: true });
      expect(full.status).toBe(409);
      ProblemSchema.parse(full.body);
      expect(matches(json('Reserving a door at booking', 1), full.body), full.text).toBe(true);
      expect(await count()).toBe(before); // nothing created
    });
  });

  it("extends a parcel's storage as its example shows", async () => {
    const s = await stack.scene('1:S');
    const api = client(stack.url, s.org.apiKey);
    const { shipment } = await s.deposit();
    const extended = await api.post(`/api/v1/shipments/${shipment.id}/extend`);
    expect(extended.status).toBe(200);
    StorageSchema.parse(extended.body);
    expect(matches(json('Extending storage'), extended.body), extended.text).toBe(true);
    // Free and maximum storage (72 hours, 7 days) both grew by 48 hours.
    const [row] = await stack.sql<{ deposited_at: Date }[]>`
      select deposited_at from shipments where id = ${shipment.id}`;
    const hours = (iso: string) => (Date.parse(iso) - row!.deposited_at.getTime()) / 3_600_000;
    expect(hours(extended.body.free_until)).toBe(72 + 48);
    expect(hours(extended.body.expires_at)).toBe(168 + 48);
    // Once per parcel.
    const again = await api.post(`/api/v1/shipments/${shipment.id}/extend`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('not_extendable');
  });

  it('verifies and applies a real webhook with its JavaScript, and catches up with the events API', async () => {
    const s = await stack.scene('1:S');
    const api = client(stack.url, s.org.apiKey);
    const { secret } = (await api.post('/api/v1/webhooks', { url: hook.url })).body;
    const { shipment } = await s.deposit();
    const delivery = await waitFor(() => hook.eventsOf(shipment.id)[0]);
    const [verify, catchUp] = [0, 1].map((n) => block('A worked integration', 'js', n));

    // Step 4 as written, its imports and exports made plain; `db` is the shop's.
    const applied: [string, { id: string }][] = [];
    const remembered = new Set<string>();
    const db = {
      seen: (id: string) => Promise.resolve(remembered.has(id)),
      apply: (type: string, s: { id: string }) => Promise.resolve(void applied.push([type, s])),
      remember: (id: string) => Promise.resolve(void remembered.add(id)),
      lastEventId: () => Promise.resolve(undefined),
    };
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

    // Step 5 as written: every event of the organization, oldest first. The API lists an
    // event once every transaction older than it has ended (a verifier worker's may still
    // run), so the catch-up is run again, as a shop's would be, until it has them all.
    const stored = await stack.sql<{ id: string }[]>`
      select id from events where organization_id = ${s.org.id} order by xid, seq`;
    let seen: { id: string; type: string }[] = [];
    await expect
      .poll(async () => {
        seen = [];
        await new AsyncFunction('db', 'BASE', 'API_KEY', 'onLockerEvent', catchUp!.code)(
          db,
          stack.url,
          s.org.apiKey,
          (event: { id: string; type: string }) => Promise.resolve(void seen.push(event)),
        );
        return seen.map((e) => e.id);
      })
      .toEqual(stored.map((e) => e.id));
    expect(seen.map((e) => e.type)).toContain('shipment.ready_for_pickup');
  });

  it('walks its worked checkout: finder, booking with a reservation, station_full, cancel', async () => {
    await inTown(async ({ on, org, pr01, pr06 }) => {
      const heading = 'A worked checkout: finder, booking, cancel';
      const [offer, booking, cancel] = [0, 1, 2].map((n) => block(heading, 'sh', n));
      const env = { API_KEY: org.apiKey };
      const freeM = async () =>
        StationFinderResultSchema.parse(JSON.parse((await shell(on, offer!, env)).stdout));

      // 1. Lockers with room for an M, nearest first: PR06 (its one M door held) is left out.
      const offered = await freeM();
      expect(offered.data.map((s) => s.code)).toEqual(['PR01', 'PR07']);
      for (const s of offered.data)
        expect(s.free_doors.M + s.free_doors.L + s.free_doors.XL).toBeGreaterThan(0);
      expect(offered.data[0]!.distance_m).toBeLessThan(offered.data[1]!.distance_m);
      const freeBefore = offered.data[0]!.free_doors;

      // 2. Booked with a reservation at the station chosen: a door held.
      const booked = ShipmentSchema.parse(
        JSON.parse((await shell(on, booking!, env, { '<chosen station id>': pr01.id })).stdout),
      );
      expect(booked).toMatchObject({
        status: 'booked',
        merchant_order_reference: '10046',
        reservation: { status: 'held' },
      });
      expect((await freeM()).data[0]!.free_doors.M).toBe(freeBefore.M - 1);

      // The 409 handling as written, the shop's `askCustomer` a stand-in: at PR06, full.
      const ask = (stations: unknown) => Promise.resolve({ asked: stations });
      const handle = (stationId: string) =>
        new AsyncFunction('BASE', 'headers', 'body', 'askCustomer', block(heading, 'js').code)(
          on.url,
          { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
          JSON.stringify({
            destination_station_id: stationId,
            parcel_size: 'M',
            recipient_name: 'Drita Gashi',
            recipient_phone: '+38344123456',
            recipient_language: 'sq',
            reserve_door: true,
          }),
          ask,
        );
      const asked = (await handle(pr06.id)) as { asked: { code: string }[] };
      expect(asked.asked.map((s) => s.code)).toEqual(['PR07', 'PR01']);
      // With room, it books and asks nothing.
      expect(await handle(pr01.id)).toBeUndefined();

      // 3. Cancelled before it ships: the shipment, "status":"cancelled", the door free again.
      const cancelled = ShipmentSchema.parse(
        JSON.parse((await shell(on, cancel!, { ...env, ID: booked.id })).stdout),
      );
      expect(cancelled).toMatchObject({
        id: booked.id,
        status: 'cancelled',
        reservation: { status: 'released' },
      });
      // PR01's M door is free again; its XL is the one the JavaScript's booking holds.
      expect((await freeM()).data[0]!.free_doors).toEqual({ ...freeBefore, XL: freeBefore.XL - 1 });
      expect(await on.webhookTypesOf(booked.id)).toContain('shipment.cancelled');
    });
  });
});
