import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createSandboxOrganization } from '../admin/sandbox';
import { client, useTestServer } from '../../test/harness';

const run = promisify(execFile);
const stack = useTestServer();

describe('GET /api/v1/shipments/{id}/label', () => {
  it('is a 100x150 mm PDF whose Code 128 barcode a scanner reads as the tracking number', async () => {
    const org = await stack.org('Dyqani i Lodrave');
    const station = await stack.station('1:S', { name: 'Prizren Shadërvan', cabinetSn: 'KR-PZ-7' });
    const api = client(stack.url, org.apiKey);
    const shipment = (
      await api.post('/api/v1/shipments', {
        destination_station_id: station.id,
        parcel_size: 'L',
        recipient_name: 'Şükrü Gözütok',
        recipient_phone: '+905321234567',
        recipient_language: 'tr',
        merchant_order_reference: 'SO-2026-0042',
      })
    ).body;

    const response = await fetch(`${stack.url}/api/v1/shipments/${shipment.id}/label`, {
      headers: { authorization: `Bearer ${org.apiKey}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    const pdf = Buffer.from(await response.arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

    const dir = mkdtempSync(path.join(tmpdir(), 'label-'));
    const file = path.join(dir, 'label.pdf');
    writeFileSync(file, pdf);
    const info = (await run('pdfinfo', [file])).stdout;
    const [, w, h] = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(info) ?? [];
    expect(Number(w) / (72 / 25.4)).toBeCloseTo(100, 1);
    expect(Number(h) / (72 / 25.4)).toBeCloseTo(150, 1);
    expect(info).toMatch(/Pages:\s+1/);

    // What a courier's scanner does: read the printed barcode from the rendered page.
    await run('pdftoppm', ['-r', '203', '-png', '-singlefile', file, path.join(dir, 'page')]);
    const scanned = (
      await run('zbarimg', ['--quiet', '--raw', '-Scode128.enable', path.join(dir, 'page.png')])
    ).stdout.trim();
    expect(scanned).toBe(shipment.tracking_number);

    const text = (await run('pdftotext', ['-raw', file, '-'])).stdout;
    for (const expected of [
      'Şükrü Gözütok',
      'Prizren Shadërvan',
      'KR-PZ-7',
      'SO-2026-0042',
      'Dyqani i Lodrave',
      shipment.tracking_number,
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).toMatch(/DOOR SIZE\nL\n/);
  });

  it('marks a sandbox label SANDBOX, PDF and ZPL alike, and keeps the cabinet line whole', async () => {
    const box = await createSandboxOrganization(stack.sql, `Sandbox shop ${Math.random()}`);
    const station = box.stations[0]!;
    const api = client(stack.url, box.apiKey);
    const shipment = (
      await api.post('/api/v1/shipments', {
        destination_station_id: station.id,
        parcel_size: 'S',
        recipient_name: 'Test Recipient',
        recipient_phone: '+38344123456',
        recipient_language: 'en',
      })
    ).body;
    const [row] = await stack.sql<{ cabinet_sn: string }[]>`
      select cabinet_sn from stations where id = ${station.id}`;
    const cabinetSn = row!.cabinet_sn;
    const fetchLabel = (query = '') =>
      fetch(`${stack.url}/api/v1/shipments/${shipment.id}/label${query}`, {
        headers: { authorization: `Bearer ${box.apiKey}` },
      });

    const dir = mkdtempSync(path.join(tmpdir(), 'label-'));
    const file = path.join(dir, 'sandbox.pdf');
    writeFileSync(file, Buffer.from(await (await fetchLabel()).arrayBuffer()));
    const lines = (await run('pdftotext', ['-raw', file, '-'])).stdout.split('\n');
    expect(lines).toContain(`${station.code} · cabinet ${cabinetSn}`);
    expect(lines.some((l) => l.startsWith('SANDBOX · TEST LABEL'))).toBe(true);
    expect(lines).toContain('SANDBOX: TEST ONLY, NEVER DELIVERED');
    expect(lines).toContain('SANDBOX');
    // The marks leave the barcode readable.
    await run('pdftoppm', ['-r', '203', '-png', '-singlefile', file, path.join(dir, 'sandbox')]);
    const scanned = await run('zbarimg', [
      '--quiet',
      '--raw',
      '-Scode128.enable',
      path.join(dir, 'sandbox.png'),
    ]);
    expect(scanned.stdout.trim()).toBe(shipment.tracking_number);

    const zpl = await (await fetchLabel('?format=zpl')).text();
    expect(zpl).toContain('^FH^FDSANDBOX · TEST LABEL^FS');
    // A black band with the warning reversed out of it.
    expect(zpl).toMatch(
      /\^GB\d+,80,80\^FS\n\^FO\d+,\d+\^FR\^A0N[^\n]*SANDBOX: TEST ONLY, NEVER DELIVERED/,
    );
    expect(zpl).toContain(`${station.code} · cabinet ${cabinetSn}^FS`);

    // A live shipment's label carries no such mark, however long its cabinet number.
    const org = await stack.org();
    const live = await stack.station('1:S', {
      name: 'Prishtina Qendra',
      cabinetSn: 'KR-CU16-0042-NORTH-WING-ANNEX',
    });
    const parcel = await stack.shipment(org.id, live.id);
    const livePdf = path.join(dir, 'live.pdf');
    const answer = await fetch(`${stack.url}/api/v1/shipments/${parcel.id}/label`, {
      headers: { authorization: `Bearer ${org.apiKey}` },
    });
    writeFileSync(livePdf, Buffer.from(await answer.arrayBuffer()));
    const liveText = (await run('pdftotext', ['-raw', livePdf, '-'])).stdout;
    expect(liveText).not.toContain('SANDBOX');
    expect(liveText.split('\n')).toContain(`${live.code} · cabinet KR-CU16-0042-NORTH-WING-ANNEX`);
  });
});

describe('a label printed again', () => {
  it('is the same PDF while nothing it shows changed, and shows a renamed station at once', async () => {
    const org = await stack.org('Reprint Shop');
    const station = await stack.station('1:M', { name: 'Vlorë Plazhi' });
    const api = client(stack.url, org.apiKey);
    const shipment = (
      await api.post('/api/v1/shipments', {
        destination_station_id: station.id,
        parcel_size: 'M',
        recipient_name: 'Ana Hoxha',
        recipient_phone: '+355691234567',
        recipient_language: 'sq',
      })
    ).body;
    const label = async (format = 'pdf') => {
      const response = await fetch(
        `${stack.url}/api/v1/shipments/${shipment.id}/label?format=${format}`,
        { headers: { authorization: `Bearer ${org.apiKey}` } },
      );
      expect(response.status).toBe(200);
      return Buffer.from(await response.arrayBuffer());
    };
    const text = async (pdf: Buffer) => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'reprint-')), 'label.pdf');
      writeFileSync(file, pdf);
      return (await run('pdftotext', ['-raw', file, '-'])).stdout;
    };

    const first = await label();
    expect(await text(first)).toContain('Vlorë Plazhi');
    expect((await label()).equals(first)).toBe(true);
    // Each page size is a label of its own.
    expect((await label('pdf-a6')).equals(first)).toBe(false);

    await stack.sql`update stations set name = 'Vlorë Skelë' where id = ${station.id}`;
    const renamed = await text(await label());
    expect(renamed).toContain('Vlorë Skelë');
    expect(renamed).not.toContain('Plazhi');
  });
});
