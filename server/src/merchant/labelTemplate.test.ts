import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ShipmentView } from '../shipments/view';
import { renderLabel, renderWithPdfkit, type LabelFacts, type PdfPage } from './label';
import { drawTemplate, templateLabel } from './labelTemplate';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'label-template-'));
let files = 0;

function facts(
  fields: Partial<ShipmentView> = {},
  senderName = 'Dyqani i Lodrave',
  sandbox = false,
): LabelFacts {
  const at = new Date('2026-11-28T09:30:00Z');
  const shipment = {
    id: '00000000-0000-4000-8000-000000000001',
    organization_id: '00000000-0000-4000-8000-000000000002',
    tracking_number: 'PL398318615261',
    status: 'booked',
    destination_station_id: '00000000-0000-4000-8000-000000000003',
    station_code: 'PRZ-004',
    station_name: 'Prizren Shadërvan',
    cabinet_sn: 'KR-PZ-7',
    slot_no: null,
    parcel_size: 'L',
    recipient_name: 'Şükrü Gözütok',
    recipient_phone: '+905321234567',
    recipient_language: 'tr',
    merchant_order_reference: 'SO-2026-0042',
    created_at: at,
    updated_at: at,
    accessible_door: false,
    reserved_until: null,
    ...fields,
  } as unknown as ShipmentView;
  return { shipment, senderName, sandbox };
}

function saved(pdf: Buffer): string {
  const file = path.join(dir, `${files++}.pdf`);
  writeFileSync(file, pdf);
  return file;
}

interface Word {
  text: string;
  x: number;
  y: number;
  xMax: number;
  yMax: number;
  height: number;
}

/** Every word on the page with where it starts, as poppler reads it. */
async function words(pdf: Buffer): Promise<Word[]> {
  const html = (await run('pdftotext', ['-bbox', saved(pdf), '-'])).stdout;
  const found = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</g;
  return [...html.matchAll(found)].map(([, x, y, xMax, yMax, text]) => ({
    text: text!.replace(/&amp;/g, '&'),
    x: Number(x),
    y: Number(y),
    xMax: Number(xMax),
    yMax: Number(yMax),
    height: Number(yMax) - Number(y),
  }));
}

async function scanned(pdf: Buffer): Promise<string> {
  const file = saved(pdf);
  await run('pdftoppm', ['-r', '203', '-png', '-singlefile', file, `${file}-page`]);
  const { stdout } = await run('zbarimg', [
    '--quiet',
    '--raw',
    '-Scode128.enable',
    `${file}-page.png`,
  ]);
  return stdout.trim();
}

const LABELS: [string, LabelFacts, PdfPage][] = [
  ['Turkish, 100x150', facts(), 'pdf'],
  ['Turkish, A6', facts(), 'pdf-a6'],
  [
    'Serbian in Cyrillic',
    facts(
      {
        station_name: 'Београд Врачар',
        recipient_name: 'Ђорђе Шћепановић',
        recipient_language: 'sr',
      },
      'Продавница „Љиљана”',
    ),
    'pdf',
  ],
  [
    'Albanian, station and recipient on two lines each',
    facts({
      station_name: 'Prishtinë Qendra Sheshi Nëna',
      recipient_name: 'Arbëreshë Kastriot Skënderbeu Gjergj Berisha',
      recipient_language: 'sq',
      merchant_order_reference: null,
    }),
    'pdf',
  ],
  [
    'a name pdfkit breaks after a hyphen, and one with a spaced comma and parentheses',
    facts({
      station_name: 'Prishtinë Qendra-Sheshi 12',
      recipient_name: 'Marija Tvrtković-Vuković ( c/o Teuta , Prizren )',
    }),
    'pdf',
  ],
  [
    'ligatures the shaper makes (fi, ff, ffi, fl)',
    facts(
      { station_name: 'Griffin Office Eiffel', recipient_name: 'Şefika Lütfiye Öztürk' },
      'Flaffl',
    ),
    'pdf',
  ],
  [
    'a sandbox label in English',
    facts({ recipient_name: 'Test Recipient', recipient_language: 'en' }, 'Sandbox shop', true),
    'pdf',
  ],
  // Station names at the edge of the name's width, where the template asks fontkit for
  // pdfkit's own kerned widths: by the letters' advances alone the first two would break
  // after their second word (179.1 and 179.5 pt of a 178.6 pt line); kerned, they fit.
  ...[
    'AVALA Tayyar Vojvoda',
    'AVALA Vojvoda Toyota',
    'Warszawa Mokotów 121',
    'Warszawa Mokotów 128',
  ].map((name): [string, LabelFacts, PdfPage] => [
    `a name at the edge of its line (${name})`,
    facts({ station_name: name, recipient_name: 'Jan Kowalski' }),
    'pdf',
  ]),
];

describe('the label drawn from the prepared template', () => {
  it.each(LABELS)(
    '%s: every word where pdfkit puts it, the barcode scans, the fonts embedded',
    async (_, label, page) => {
      const prepared = drawTemplate(label, page);
      const reference = await renderWithPdfkit(label, page);
      const [all, allTheirs] = await Promise.all([words(prepared), words(reference)]);
      // The large letters (the door size, a sandbox's SANDBOX turned across the label):
      // poppler groups turned letters into words by their gaps, which kerning moves.
      const large = (found: Word[]) =>
        [
          ...found
            .filter((w) => w.height > 30)
            .map((w) => w.text)
            .join(''),
        ]
          .sort()
          .join('');
      expect(large(all)).toBe(large(allTheirs));
      const [ours, theirs] = [all, allTheirs].map((found) =>
        found.filter((w) => w.height <= 30),
      ) as [Word[], Word[]];
      expect(ours.map((w) => w.text)).toEqual(theirs.map((w) => w.text));
      ours.forEach((word, i) => {
        const want = theirs[i]!;
        // The same line and the same place in it, kerning and spacing within the word
        // included (where it ends), to a twentieth of a point.
        expect(Math.abs(word.y - want.y), `${word.text} y`).toBeLessThan(0.05);
        expect(Math.abs(word.x - want.x), `${word.text} x`).toBeLessThan(0.05);
        expect(Math.abs(word.xMax - want.xMax), `${word.text} end`).toBeLessThan(0.05);
      });
      // No two words run into each other (the sender beside the header included).
      const overlap = (a: Word, b: Word) =>
        a.x < b.xMax - 0.5 && b.x < a.xMax - 0.5 && a.y < b.yMax - 0.5 && b.y < a.yMax - 0.5;
      const collisions = ours.flatMap((a, i) =>
        ours.slice(i + 1).flatMap((b) => (overlap(a, b) ? [`${a.text} / ${b.text}`] : [])),
      );
      expect(collisions).toEqual([]);
      expect(await scanned(prepared)).toBe(label.shipment.tracking_number);
      const fonts = (await run('pdffonts', [saved(prepared)])).stdout;
      // Both fonts embedded, subset, and mapped back to letters (copy and search work).
      expect(
        fonts.match(/DejaVuSans(-Bold)?\s+CID TrueType\s+Identity-H\s+yes yes yes/g),
      ).toHaveLength(2);
      // As small as pdfkit's: only the glyphs drawn are embedded.
      expect(prepared.length).toBeLessThan(reference.length * 1.1);
    },
  );

  it('is what renderLabel answers when the template can draw the label', async () => {
    const label = facts();
    const rendered = await renderLabel(label);
    // Everything but the creation time is the same bytes.
    const strip = (pdf: Buffer) => pdf.toString('latin1').replace(/\/CreationDate \(D:\d+Z\)/, '');
    expect(strip(rendered)).toBe(strip(drawTemplate(label)));
  });

  it.each([
    [
      'a letter it does not draw (Arabic, shaped)',
      facts({ recipient_name: 'محمد علي' }),
      /not drawn/,
    ],
    ['a combining mark', facts({ recipient_name: 'Zoe\u0308 Kaya' }), /not drawn/],
    [
      'a station name that needs three lines',
      facts({
        station_name: 'Prishtinë Qendra Sheshi Nëna Terezë Bulevardi Bill Klinton Hyrja Lindore 12',
      }),
      /more than 2 lines/,
    ],
    [
      'a sender whose name needs a second line',
      facts({}, 'Dyqani i Lodrave dhe i Librave për Fëmijë e të Rinj në Prizren dhe Gjakovë'),
      /needs more than 1 lines/,
    ],
    ['a soft hyphen', facts({ recipient_name: 'Jan Kowal\u00adski' }), /spaces|hyphen|empty/],
    ['two spaces in a name', facts({ recipient_name: 'Jan  Kowalski' }), /spaces/],
  ])('leaves to pdfkit %s', async (_, label, why) => {
    expect(() => drawTemplate(label)).toThrow(why);
    expect(templateLabel(label)).toBeNull();
    const pdf = await renderLabel(label);
    const text = (await run('pdftotext', ['-raw', saved(pdf), '-'])).stdout;
    expect(text).toContain('DELIVER TO LOCKER');
    expect(text).toContain(label.shipment.station_name.split(/[ -]/)[0]);
    expect(await scanned(pdf)).toBe(label.shipment.tracking_number);
  });
});
