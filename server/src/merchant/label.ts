import PDFDocument from 'pdfkit';
import {
  FONTS,
  FOOT,
  HEADER_GAP,
  MARGIN,
  MM,
  PDF_PAGES,
  SANDBOX_BAND,
  SANDBOX_HEADER,
  barcodeBox,
  barcodeModules,
  cabinetLine,
  fittedSize,
  headerSize,
  type LabelFacts,
  type PdfPage,
} from './labelLayout';
import { templateLabel } from './labelTemplate';

export {
  PDF_PAGES,
  SANDBOX_BAND,
  SANDBOX_HEADER,
  cabinetLine,
  type LabelFacts,
  type PdfPage,
} from './labelLayout';

// pdfkit takes a parsed fontkit font where its types say a path; it embeds a subset of
// the parsed font in each label, whose glyphs are read from the file once (glyphCache.ts).
const REGULAR = FONTS.regular as unknown as string;
const BOLD = FONTS.bold as unknown as string;

/** Code 128 of the tracking number as vector bars (`labelLayout.barcodeModules`). */
function drawBarcode(
  doc: PDFKit.PDFDocument,
  text: string,
  box: { x: number; y: number; width: number; height: number },
): void {
  const widths = barcodeModules(text);
  const module = box.width / widths.reduce((sum, w) => sum + w, 0);
  let at = box.x;
  widths.forEach((w, i) => {
    if (i % 2 === 0) doc.rect(at, box.y, w * module, box.height);
    at += w * module;
  });
  doc.fill('#000');
}

/** The largest size from `max` down to `min` at which `text` fits `width` on one line. */
function shrunkToFit(
  doc: PDFKit.PDFDocument,
  text: string,
  width: number,
  max: number,
  min: number,
): number {
  return fittedSize(doc.fontSize(max).widthOfString(text), width, max, min);
}

function rule(doc: PDFKit.PDFDocument, y: number): void {
  doc
    .moveTo(MARGIN, y)
    .lineTo(doc.page.width - MARGIN, y)
    .lineWidth(1)
    .stroke('#000');
}

/**
 * The label as a PDF: destination, door size, recipient, barcode. Drawn from the prepared
 * template (labelTemplate.ts) where it can draw every text of the label, by pdfkit where
 * not (a letter outside the template's fonts, a text that would need a third line…).
 */
export function renderLabel(facts: LabelFacts, page: PdfPage = 'pdf'): Promise<Buffer> {
  const prepared = templateLabel(facts, page);
  return prepared ? Promise.resolve(prepared) : renderWithPdfkit(facts, page);
}

/**
 * The label laid out by pdfkit: from the top in mm, fitting both pages (A6 is 5 mm wider
 * and 2 mm shorter). The template draws the same layout.
 */
export function renderWithPdfkit(
  { shipment, senderName, sandbox = false }: LabelFacts,
  page: PdfPage = 'pdf',
): Promise<Buffer> {
  const WIDTH = PDF_PAGES[page].width * MM;
  const INNER = WIDTH - 2 * MARGIN;
  const doc = new PDFDocument({
    size: [WIDTH, PDF_PAGES[page].height * MM],
    margin: 0,
    // No default font: pdfkit would parse its Helvetica metrics for every label (≈8 % of a
    // label's CPU) and embed a font the label never uses; every text below names its font.
    font: null as unknown as string,
    info: { Title: `Label ${shipment.tracking_number}`, Producer: 'Parcel Locker' },
  });
  doc.registerFont('regular', REGULAR);
  doc.registerFont('bold', BOLD);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) =>
    doc.on('end', () => resolve(Buffer.concat(chunks))),
  );

  if (sandbox) {
    // Behind everything above the barcode (which stays readable): SANDBOX, large, grey.
    doc.save();
    doc.rotate(-28, { origin: [WIDTH / 2, 36 * MM] });
    doc
      .font('bold')
      .fontSize(46)
      .fillColor('#c8c8c8')
      .text('SANDBOX', -WIDTH / 2, 28 * MM, {
        width: 2 * WIDTH,
        align: 'center',
        lineBreak: false,
      });
    doc.restore();
    doc.fillColor('#000');
  }
  const header = sandbox ? SANDBOX_HEADER : 'PARCEL LOCKER';
  doc.font('bold').fontSize(headerSize(sandbox)).text(header, MARGIN, MARGIN);
  // The sender in what the header leaves of the line, never over it: one line, its type
  // smaller for a long name (to 5 pt), as the cabinet line's; cut short (…) past that.
  const headerWidth = doc.widthOfString(header) + HEADER_GAP;
  const from = `From: ${senderName}`;
  const fromWidth = INNER - headerWidth;
  doc
    .font('regular')
    .fontSize(shrunkToFit(doc, from, 0.97 * fromWidth, 8, 5))
    .text(from, MARGIN + headerWidth, MARGIN + 3, {
      width: fromWidth,
      align: 'right',
      height: 12,
      ellipsis: true,
    });
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
  const cabinetWidth = INNER - sizeBox - 3 * MM;
  doc
    .font('regular')
    .fontSize(9)
    // Sized for 97 % of the width: pdfkit's line wrapper measures the line piece by piece
    // (between the hyphens), which can come out a little wider than the whole string, and
    // a line sized to the point was broken at a hyphen (one label in six, by the station
    // code's digits).
    .fontSize(shrunkToFit(doc, cabinetLine(shipment), 0.97 * cabinetWidth, 9, 5))
    .text(cabinetLine(shipment), MARGIN, 31 * MM, {
      width: cabinetWidth,
      lineBreak: false,
      ellipsis: true,
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
  drawBarcode(doc, shipment.tracking_number, barcodeBox(WIDTH));
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
  if (sandbox) {
    doc.rect(MARGIN, 136 * MM, INNER, 10 * MM).fill('#000');
    doc
      .font('bold')
      .fontSize(10)
      .fillColor('#fff')
      .text(SANDBOX_BAND, MARGIN, 139 * MM, { width: INNER, align: 'center' });
    doc.fillColor('#000');
  } else {
    doc.fontSize(7).text(FOOT, MARGIN, 140 * MM, { width: INNER, align: 'center' });
  }
  doc.end();
  return done;
}
