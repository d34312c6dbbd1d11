import bwipjs from 'bwip-js/node';
import * as fontkit from 'fontkit';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ShipmentView } from '../shipments/view';
import { withGlyphCache } from './glyphCache';

/**
 * What both PDF renderers of a label share (label.ts through pdfkit, labelTemplate.ts
 * from a prepared template): the page, its measures, its fonts and the barcode's bars.
 */

export const MM = 72 / 25.4;
export const MARGIN = 5 * MM;

/** Page sizes in mm: the spec's 100x150 thermal label, and A6 for office printers. */
export const PDF_PAGES = {
  pdf: { width: 100, height: 150 },
  'pdf-a6': { width: 105, height: 148 },
} as const;
export type PdfPage = keyof typeof PDF_PAGES;

export interface LabelFacts {
  shipment: ShipmentView;
  senderName: string;
  /** A sandbox shipment's label: marked SANDBOX in its header, across it and in its foot. */
  sandbox?: boolean;
}

/**
 * The header's size: a sandbox label's longer header is set smaller, so that the sender
 * beside it (right-aligned, in what the header leaves of the line) does not run into it.
 */
export const headerSize = (sandbox: boolean) => (sandbox ? 10 : 15);
/** The gap between the header and the sender beside it. */
export const HEADER_GAP = 3 * MM;

/** What a sandbox label says, in its header and in a black band at its foot. */
export const SANDBOX_HEADER = 'SANDBOX · TEST LABEL';
export const SANDBOX_BAND = 'SANDBOX: TEST ONLY, NEVER DELIVERED';
export const FOOT = 'Scan at the locker to deposit. The recipient gets a pickup code by SMS.';

/**
 * The largest size from `max` down to `min`, in tenths of a point, at which a text that is
 * `atMax` wide at `max` fits `width` on one line.
 */
export function fittedSize(atMax: number, width: number, max: number, min: number): number {
  return atMax <= width ? max : Math.max(min, Math.floor((max * width * 10) / atMax) / 10);
}

/** The cabinet line, one line whatever its length: smaller type, never a word broken. */
export function cabinetLine(shipment: ShipmentView): string {
  return `${shipment.station_code} · cabinet ${shipment.cabinet_sn}`;
}

// The PDF standard fonts are WinAnsi only: no č, ć, đ (Serbian) nor ğ, ı, ş (Turkish).
// DejaVu covers every recipient language. Parsing a TrueType file costs ~13 ms, so each
// is parsed once per process; what a subset reads of each glyph is kept (glyphCache.ts).
const fontDir = path.join(
  path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')),
  'ttf',
);
const parse = (file: string) =>
  withGlyphCache(fontkit.create(readFileSync(path.join(fontDir, file))) as fontkit.Font);
export const FONTS = { regular: parse('DejaVuSans.ttf'), bold: parse('DejaVuSans-Bold.ttf') };
export type FontName = keyof typeof FONTS;

/**
 * Code 128 of the tracking number: bar and space widths in modules, alternating from a
 * bar. Drawn as vector bars: exact module edges on any printer resolution.
 */
export function barcodeModules(text: string): number[] {
  const [symbol] = bwipjs.raw('code128', text, '') as { sbs: number[] }[];
  return symbol?.sbs ?? [];
}

/** Where the barcode stands on a page `width` points wide (quiet zones kept by margins). */
export function barcodeBox(width: number) {
  return { x: MARGIN + 4 * MM, y: 66 * MM, width: width - 2 * MARGIN - 8 * MM, height: 36 * MM };
}
