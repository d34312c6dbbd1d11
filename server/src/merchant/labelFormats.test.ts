import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ready } from 'zpl-renderer-js';
import { client, useTestServer } from '../../test/harness';

const run = promisify(execFile);
const stack = useTestServer();
let shipment: { id: string; tracking_number: string };
let apiKey: string;
const dir = mkdtempSync(path.join(tmpdir(), 'labels-'));

beforeAll(async () => {
  const org = await stack.org('Dyqani_i ^Lodrave~');
  apiKey = org.apiKey;
  const station = await stack.station('1:S', { name: 'Beograd Čukarica', cabinetSn: 'KR-BG-3' });
  shipment = (
    await client(stack.url, apiKey).post('/api/v1/shipments', {
      destination_station_id: station.id,
      parcel_size: 'M',
      recipient_name: 'Đorđe Čolić',
      recipient_phone: '+381641234567',
      recipient_language: 'sr',
      merchant_order_reference: 'SO^XZ~JA_1',
    })
  ).body;
});

async function fetchLabel(query: string) {
  const response = await fetch(`${stack.url}/api/v1/shipments/${shipment.id}/label${query}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return { response, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** What a courier's scanner does with the printed label. */
async function scan(png: string): Promise<string> {
  return (await run('zbarimg', ['--quiet', '--raw', '-Scode128.enable', png])).stdout.trim();
}

describe('label formats', () => {
  it('pdf-a6 is an A6 page (105x148 mm) whose barcode scans as the tracking number', async () => {
    const { response, bytes } = await fetchLabel('?format=pdf-a6');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    const file = path.join(dir, 'a6.pdf');
    writeFileSync(file, bytes);
    const info = (await run('pdfinfo', [file])).stdout;
    const [, w, h] = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(info) ?? [];
    expect(Number(w) / (72 / 25.4)).toBeCloseTo(105, 1);
    expect(Number(h) / (72 / 25.4)).toBeCloseTo(148, 1);
    await run('pdftoppm', ['-r', '203', '-png', '-singlefile', file, path.join(dir, 'a6')]);
    expect(await scan(path.join(dir, 'a6.png'))).toBe(shipment.tracking_number);
    const text = (await run('pdftotext', ['-raw', file, '-'])).stdout;
    expect(text).toContain('Đorđe Čolić');
    expect(text).toContain('Beograd Čukarica');
  });

  for (const dpi of [203, 300] as const) {
    it(`zpl at ${dpi} dpi is one 100x150 mm ZPL II label; rendered by an independent ZPL renderer, its barcode scans`, async () => {
      const { response, bytes } = await fetchLabel(`?format=zpl&dpi=${dpi}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/zpl/);
      expect(response.headers.get('content-disposition')).toContain(`${dpi}dpi.zpl`);
      const zpl = bytes.toString('utf8');
      const dpmm = dpi === 203 ? 8 : 12;
      // One label, its size in dots, UTF-8, a Code 128 of the tracking number.
      expect(zpl.match(/\^XA/g)).toHaveLength(1);
      expect(zpl.trim().startsWith('^XA')).toBe(true);
      expect(zpl.trim().endsWith('^XZ')).toBe(true);
      expect(zpl).toContain('^CI28');
      expect(zpl).toContain(`^PW${100 * dpmm}\n`);
      expect(zpl).toContain(`^LL${150 * dpmm}\n`);
      expect(zpl).toMatch(
        new RegExp(
          `\\^BY${dpi === 203 ? 3 : 4},3,\\d+\\^BCN,\\d+,N,N,N\\^FH\\^FD${shipment.tracking_number}\\^FS`,
        ),
      );
      // Merchant text cannot break out of its field: ^ ~ _ arrive hex-escaped.
      expect(zpl).toContain('Order: SO_5EXZ_7EJA_5F1');
      expect(zpl).toContain('From: Dyqani_5Fi _5ELodrave_7E');
      expect(zpl).not.toMatch(/\^FD[^\n]*~/);
      expect(zpl).toContain('Đorđe Čolić');

      const { api } = await ready;
      const png = path.join(dir, `zpl-${dpi}.png`);
      writeFileSync(png, Buffer.from(await api.zplToBase64Async(zpl, 100, 150, dpmm), 'base64'));
      const size = (await run('file', [png])).stdout;
      expect(size).toContain(`${100 * dpmm} x ${150 * dpmm}`);
      expect(await scan(png)).toBe(shipment.tracking_number);
    });
  }

  it('answers 422 for an unknown format, a dpi other than 203/300 or a dpi on a PDF', async () => {
    for (const [query, field, code] of [
      ['?format=epl', 'format', 'invalid_value'],
      ['?format=zpl&dpi=600', 'dpi', 'invalid_value'],
      ['?format=pdf&dpi=300', 'dpi', 'not_applicable'],
      ['?size=a6', 'size', 'unrecognized_key'],
    ]) {
      const { response, bytes } = await fetchLabel(query!);
      expect(response.status, query).toBe(422);
      const body = JSON.parse(bytes.toString());
      expect(body.errors[0], query).toMatchObject({ field, code });
    }
    // zpl without a dpi is for the common 203 dpi head.
    const { response, bytes } = await fetchLabel('?format=zpl');
    expect(response.status).toBe(200);
    expect(bytes.toString()).toContain('^PW800\n');
  });
});
