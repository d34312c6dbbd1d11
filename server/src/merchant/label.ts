import { toBuffer } from 'bwip-js/node';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import type { ShipmentView } from './presenter';

const MM = 72 / 25.4;
const WIDTH = 100 * MM;
const HEIGHT = 150 * MM;
const MARGIN = 5 * MM;
const INNER = WIDTH - 2 * MARGIN;

// The PDF standard fonts are WinAnsi only: no č, ć, đ (Serbian) nor ğ, ı, ş (Turkish).
// DejaVu covers every recipient language; read once, embedded (subset) in each label.
const fontDir = path.join(
  path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')),
  'ttf',
);
const REGULAR = readFileSync(path.join(fontDir, 'DejaVuSans.ttf'));
const BOLD = readFileSync(path.join(fontDir, 'DejaVuSans-Bold.ttf'));

export interface LabelFacts {
  shipment: ShipmentView;
  senderName: string;
}

/** Code 128 of the tracking number, drawn large enough for a handheld scanner at 203 dpi. */
function barcode(trackingNumber: string): Promise<Buffer> {
  return toBuffer({
    bcid: 'code128',
    text: trackingNumber,
    scale: 4,
    height: 22,
    includetext: false,
    paddingwidth: 0,
  });
}

function rule(doc: PDFKit.PDFDocument, y: number): void {
  doc
    .moveTo(MARGIN, y)
    .lineTo(WIDTH - MARGIN, y)
    .lineWidth(1)
    .stroke('#000');
}

/** The 100x150 mm thermal label as a PDF: destination, door size, recipient, barcode. */
export async function renderLabel({ shipment, senderName }: LabelFacts): Promise<Buffer> {
  const bars = await barcode(shipment.tracking_number);
  const doc = new PDFDocument({
    size: [WIDTH, HEIGHT],
    margin: 0,
    info: { Title: `Label ${shipment.tracking_number}`, Producer: 'Parcel Locker' },
  });
  doc.registerFont('regular', REGULAR);
  doc.registerFont('bold', BOLD);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) =>
    doc.on('end', () => resolve(Buffer.concat(chunks))),
  );

  doc.font('bold').fontSize(15).text('PARCEL LOCKER', MARGIN, MARGIN);
  doc
    .font('regular')
    .fontSize(8)
    .text(`From: ${senderName}`, MARGIN, MARGIN + 3, { width: INNER, align: 'right' });
  rule(doc, 12 * MM);

  // Destination on the left, door size boxed on the right: what the courier needs first.
  const sizeBox = 24 * MM;
  doc
    .font('regular')
    .fontSize(7)
    .text('DELIVER TO LOCKER', MARGIN, 14 * MM);
  doc
    .font('bold')
    .fontSize(14)
    .text(shipment.station_name, MARGIN, 17 * MM, {
      width: INNER - sizeBox - 3 * MM,
      height: 13 * MM,
      ellipsis: true,
    });
  doc
    .font('regular')
    .fontSize(9)
    .text(`${shipment.station_code} · cabinet ${shipment.cabinet_sn}`, MARGIN, 31 * MM, {
      width: INNER - sizeBox - 3 * MM,
    });
  doc
    .rect(WIDTH - MARGIN - sizeBox, 14 * MM, sizeBox, 22 * MM)
    .lineWidth(2)
    .stroke('#000');
  doc
    .font('regular')
    .fontSize(7)
    .text('DOOR SIZE', WIDTH - MARGIN - sizeBox, 15.5 * MM, { width: sizeBox, align: 'center' });
  doc
    .font('bold')
    .fontSize(34)
    .text(shipment.parcel_size, WIDTH - MARGIN - sizeBox, 19 * MM, {
      width: sizeBox,
      align: 'center',
    });
  rule(doc, 39 * MM);

  doc
    .font('regular')
    .fontSize(7)
    .text('RECIPIENT', MARGIN, 41 * MM);
  doc
    .font('bold')
    .fontSize(16)
    .text(shipment.recipient_name, MARGIN, 44.5 * MM, {
      width: INNER,
      height: 14 * MM,
      ellipsis: true,
    });
  rule(doc, 60 * MM);

  // Quiet zones of at least 10 modules either side are kept by the margins.
  const barWidth = INNER - 8 * MM;
  doc.image(bars, MARGIN + 4 * MM, 66 * MM, { width: barWidth, height: 36 * MM });
  doc
    .font('bold')
    .fontSize(18)
    .text(shipment.tracking_number, MARGIN, 105 * MM, {
      width: INNER,
      align: 'center',
      characterSpacing: 2,
    });
  rule(doc, 115 * MM);

  doc.font('regular').fontSize(9);
  doc.text(`Order: ${shipment.merchant_order_reference ?? '—'}`, MARGIN, 118 * MM, {
    width: INNER,
  });
  doc.text(`Booked: ${shipment.created_at.toISOString().slice(0, 10)}`, MARGIN, 123 * MM, {
    width: INNER,
  });
  doc.text(`Language: ${shipment.recipient_language}`, MARGIN, 128 * MM, { width: INNER });
  doc
    .fontSize(7)
    .text(
      'Scan at the locker to deposit. The recipient gets a pickup code by SMS.',
      MARGIN,
      140 * MM,
      { width: INNER, align: 'center' },
    );
  doc.end();
  return done;
}
