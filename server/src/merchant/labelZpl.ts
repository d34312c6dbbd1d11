import { SANDBOX_BAND, SANDBOX_HEADER, cabinetLine, type LabelFacts } from './label';

/** Dots per mm of the two common thermal print heads. */
export const ZPL_DPMM = { 203: 8, 300: 12 } as const;
export type ZplDpi = keyof typeof ZPL_DPMM;

const WIDTH_MM = 100;
const HEIGHT_MM = 150;

/**
 * Field data goes through ^FH: `_`, `^` and `~` become hex escapes, so a recipient name
 * can never end the field or start a command of its own.
 */
function fieldData(text: string): string {
  return `^FH^FD${text.replace(/[_^~]/g, (c) => `_${c.charCodeAt(0).toString(16).toUpperCase()}`)}^FS`;
}

/** Shortened to about what fits in `lines` lines of `widthDots` at font height `h`. */
function fit(text: string, widthDots: number, h: number, lines = 1): string {
  // Font 0 averages a little over half its height per character.
  const max = Math.floor(widthDots / (h * 0.55)) * lines;
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Code 128 as ZPL encodes it (subset B): 11 modules a symbol, start and check, 13 for stop. */
function code128Modules(text: string): number {
  return 11 * (text.length + 2) + 13;
}

/**
 * The 100x150 mm label in ZPL II for a thermal printer of `dpi`: the same content as the
 * PDF, drawn with the printer's own font, lines and Code 128 (^BC), so it prints at the
 * head's native resolution. Text is UTF-8 (^CI28).
 */
export function renderZplLabel(
  { shipment, senderName, sandbox = false }: LabelFacts,
  dpi: ZplDpi,
): string {
  const d = ZPL_DPMM[dpi];
  const mm = (n: number) => Math.round(n * d);
  const width = mm(WIDTH_MM);
  const inner = width - 2 * mm(5);
  const left = mm(5);
  const sizeBox = mm(24);
  const text = (
    x: number,
    y: number,
    h: number,
    value: string,
    block?: { width: number; lines?: number; align?: 'L' | 'C' | 'R' },
  ) =>
    `^FO${x},${y}^A0N,${h},${h}` +
    (block ? `^FB${block.width},${block.lines ?? 1},0,${block.align ?? 'L'},0` : '') +
    fieldData(value);
  const rule = (y: number) =>
    `^FO${left},${y}^GB${inner},${Math.max(2, mm(0.3))},${Math.max(2, mm(0.3))}^FS`;

  const module = dpi === 203 ? 3 : 4;
  const barcodeWidth = code128Modules(shipment.tracking_number) * module;
  const nameWidth = inner - sizeBox - mm(3);
  const cabinetHeight = Math.max(
    mm(2),
    Math.min(mm(3.2), Math.floor(nameWidth / (cabinetLine(shipment).length * 0.55))),
  );
  const lines = [
    '^XA',
    '^CI28',
    `^PW${width}`,
    `^LL${mm(HEIGHT_MM)}`,
    '^LH0,0',
    text(left, mm(5), mm(5), sandbox ? SANDBOX_HEADER : 'PARCEL LOCKER'),
    text(left, mm(6), mm(2.8), fit(`From: ${senderName}`, inner / 2, mm(2.8)), {
      width: inner,
      align: 'R',
    }),
    rule(mm(12)),
    text(left, mm(14), mm(2.5), 'DELIVER TO LOCKER'),
    text(left, mm(17.5), mm(5), fit(shipment.station_name, nameWidth, mm(5), 2), {
      width: nameWidth,
      lines: 2,
    }),
    // One line: smaller type for a long cabinet number, down to 2 mm, never a word broken.
    text(left, mm(31), cabinetHeight, fit(cabinetLine(shipment), nameWidth, cabinetHeight), {
      width: nameWidth,
    }),
    `^FO${width - left - sizeBox},${mm(14)}^GB${sizeBox},${mm(22)},${mm(0.7)}^FS`,
    text(width - left - sizeBox, mm(15.5), mm(2.5), 'DOOR SIZE', { width: sizeBox, align: 'C' }),
    text(width - left - sizeBox, mm(20), mm(12), shipment.parcel_size, {
      width: sizeBox,
      align: 'C',
    }),
    rule(mm(39)),
    text(left, mm(41), mm(2.5), 'RECIPIENT'),
    text(left, mm(44.5), mm(6), fit(shipment.recipient_name, inner, mm(6), 2), {
      width: inner,
      lines: 2,
    }),
    rule(mm(60)),
    // Module widths of whole dots; the quiet zones are far wider than 10 modules.
    `^FO${Math.round((width - barcodeWidth) / 2)},${mm(66)}^BY${module},3,${mm(36)}^BCN,${mm(36)},N,N,N` +
      fieldData(shipment.tracking_number),
    text(left, mm(105), mm(6), shipment.tracking_number, { width: inner, align: 'C' }),
    rule(mm(115)),
    text(
      left,
      mm(118),
      mm(3.2),
      fit(`Order: ${shipment.merchant_order_reference ?? '—'}`, inner, mm(3.2)),
    ),
    text(left, mm(123), mm(3.2), `Booked: ${shipment.created_at.toISOString().slice(0, 10)}`),
    text(left, mm(128), mm(3.2), `Language: ${shipment.recipient_language}`),
    ...(sandbox
      ? [
          // A black band, its text reversed out of it (^FR): unmistakable on any printer.
          `^FO${left},${mm(136)}^GB${inner},${mm(10)},${mm(10)}^FS`,
          `^FO${left},${mm(138.5)}^FR^A0N,${mm(5)},${mm(5)}^FB${inner},1,0,C,0` +
            fieldData(SANDBOX_BAND),
        ]
      : [
          text(
            left,
            mm(140),
            mm(2.5),
            'Scan at the locker to deposit. The recipient gets a pickup code by SMS.',
            { width: inner, align: 'C' },
          ),
        ]),
    '^XZ',
  ];
  return lines.join('\n') + '\n';
}
