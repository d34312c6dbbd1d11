import { createRequire } from 'node:module';
import { deflateSync } from 'node:zlib';
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
  type FontName,
  type LabelFacts,
  type PdfPage,
} from './labelLayout';

/**
 * linebreak 1.1 (UAX 14), the line breaker pdfkit's LineWrapper uses. It ships no types,
 * and a declaration file would have to be in every tsconfig whose program imports this
 * module (the kiosk's, the console's and the journeys' import the server): required,
 * with its shape stated here.
 */
const LineBreaker = createRequire(import.meta.url)('linebreak') as new (text: string) => {
  /** The next break opportunity: the index it is before, and whether it is mandatory. */
  nextBreak(): { position: number; required: boolean } | null;
};

/**
 * The label drawn from a prepared template: the layout label.ts draws through pdfkit,
 * written straight into PDF, with only the label's own texts and barcode made per label.
 *
 * pdfkit makes each label from nothing: it builds a document, lays out every word through
 * fontkit's shaper, subsets both fonts and compresses them: ≈7.8 ms of CPU a label, the
 * costliest thing a merchant asks of the server (issue 28: create and label were the
 * hour's largest stream, 5.6 of 18 cores). Here the page's fixed parts are fixed strings,
 * each letter's glyph and each pair's kerning are asked of fontkit once per process and
 * kept, a line is measured and broken by the same arithmetic as pdfkit's line wrapper, and
 * each label writes glyph numbers, bars and the subset of the glyphs it drew (encoded
 * without fontkit's table encoder, glyphCache.ts): ≈1.5–1.8 ms.
 *
 * It draws only what it draws as pdfkit does. Lines are made of the pieces pdfkit's line
 * breaker (linebreak, UAX 14) cuts the text into, each measured as pdfkit measures it. A
 * letter outside the scripts it draws (Latin, Greek, Cyrillic; a word with a ligature
 * such as "fi" is set by fontkit's shaper, as pdfkit sets it) or a combining mark, a text
 * needing more lines than its box holds, a piece wider than its line (pdfkit would cut
 * the word), a soft hyphen, or spaces other than single ones between words:
 * `templateLabel` answers null, and label.ts renders that label through pdfkit as before.
 * Every word stands where pdfkit puts it, to a twentieth of a point (labelTemplate.test.ts).
 */

/**
 * The letters the template draws: scripts DejaVu draws without placing marks (Latin,
 * Greek, Cyrillic, their punctuation); no combining marks.
 */
const DRAWN =
  /^[\x20-\x7e\u00a0-\u024f\u0370-\u03ff\u0400-\u0482\u048a-\u04ff\u1e00-\u1eff\u2010-\u2027\u2030-\u205e\u20a0-\u20bf\u2116\u2122]$/u;

interface FontkitFont {
  unitsPerEm: number;
  ascent: number;
  descent: number;
  lineGap: number;
  capHeight?: number;
  xHeight?: number;
  italicAngle: number;
  postscriptName: string;
  bbox: { minX: number; minY: number; maxX: number; maxY: number };
  glyphForCodePoint(cp: number): { id: number; advanceWidth: number };
  getGlyph(id: number): { advanceWidth: number };
  hasGlyphForCodePoint(cp: number): boolean;
  createSubset(): { includeGlyph(id: number): number; encode(): Uint8Array };
}

/** What a template font knows once per process. */
interface PreparedFont {
  font: FontkitFont;
  /** The name of the font in the page's resources. */
  resource: string;
  baseName: string;
  /** Glyph id and advance (thousandths of the size) by code point; null: not drawn here. */
  glyphs: Map<number, { id: number; advance: number } | null>;
  /** Kerning between two letters (thousandths of the size) by pair; null: a ligature. */
  kerns: Map<number, number | null>;
  /** Runs whose pairs are not all plain, as fontkit's shaper sets them; null: not drawn. */
  shaped: Map<string, Setting[] | null>;
  ascender: number;
  /** Line height in thousandths of the size, as pdfkit's `currentLineHeight(true)`. */
  lineHeight: number;
  /** The font descriptor's entries but its font file. */
  descriptor: string;
}

function prepareFont(name: FontName, resource: string, tag: string): PreparedFont {
  const font = FONTS[name] as unknown as FontkitFont;
  const scale = 1000 / font.unitsPerEm;
  const ascender = font.ascent * scale;
  const descender = font.descent * scale;
  const baseName = `${tag}+${font.postscriptName}`;
  const { minX, minY, maxX, maxY } = font.bbox;
  return {
    font,
    resource,
    baseName,
    glyphs: new Map(),
    kerns: new Map(),
    shaped: new Map(),
    ascender,
    lineHeight: ascender + font.lineGap * scale - descender,
    descriptor:
      `/Type /FontDescriptor /FontName /${baseName} /Flags 4 ` +
      `/FontBBox [${[minX, minY, maxX, maxY].map((v) => num(v * scale)).join(' ')}] ` +
      `/ItalicAngle ${num(font.italicAngle)} /Ascent ${num(ascender)} ` +
      `/Descent ${num(descender)} /CapHeight ${num((font.capHeight || font.ascent) * scale)} ` +
      `/XHeight ${num((font.xHeight || 0) * scale)} /StemV 0`,
  };
}

/** A glyph of the font for a letter, if the template draws it. */
function glyphOf(f: PreparedFont, cp: number): { id: number; advance: number } | null {
  let glyph = f.glyphs.get(cp);
  if (glyph === undefined) {
    const letter = String.fromCodePoint(cp);
    glyph =
      DRAWN.test(letter) && f.font.hasGlyphForCodePoint(cp)
        ? (({ id, advanceWidth }) => ({ id, advance: (advanceWidth * 1000) / f.font.unitsPerEm }))(
            f.font.glyphForCodePoint(cp),
          )
        : null;
    // Bounded: names bring letters not drawn here as well (kept as null).
    if (f.glyphs.size >= 50_000) f.glyphs.clear();
    f.glyphs.set(cp, glyph);
  }
  return glyph;
}

/**
 * The kerning fontkit's shaper puts between two letters, in thousandths of the size: what
 * pdfkit draws between them (and measures lines with). Asked of fontkit once per pair and
 * font, and kept; null where the pair is not two glyphs side by side (a ligature), whose
 * run is then shaped whole (LabelFont.shape).
 */
function kernOf(f: PreparedFont, first: number, second: number): number | null {
  const pair = first * 0x110000 + second;
  let kern = f.kerns.get(pair);
  if (kern === undefined) {
    const a = glyphOf(f, first)!;
    const b = glyphOf(f, second)!;
    const run = (f.font as unknown as FontkitShaper).layout(String.fromCodePoint(first, second));
    const [p, q] = run.positions;
    const plain =
      run.glyphs.length === 2 &&
      run.glyphs[0]!.id === a.id &&
      run.glyphs[1]!.id === b.id &&
      !p!.xOffset &&
      !p!.yOffset &&
      !q!.xOffset &&
      !q!.yOffset;
    const scale = 1000 / f.font.unitsPerEm;
    kern = plain ? p!.xAdvance * scale + q!.xAdvance * scale - a.advance - b.advance : null;
    // Bounded: the letters drawn here make a few thousand pairs in practice.
    if (f.kerns.size >= 100_000) f.kerns.clear();
    f.kerns.set(pair, kern);
  }
  return kern;
}

interface FontkitShaper {
  layout(text: string): {
    glyphs: { id: number; advanceWidth: number; codePoints: number[] }[];
    positions: { xAdvance: number; xOffset: number; yOffset: number }[];
  };
}

/** A glyph as a text sets it: its letters, its advance and the kerning before it. */
interface Setting {
  codePoints: number[];
  id: number;
  /** Thousandths of the size, as the kerning. */
  advance: number;
  kern: number;
}

/**
 * One label's use of a font: the subset of the glyphs it drew (fontkit's, encoded by
 * glyphCache.ts without fontkit's table encoder), their widths and letters.
 */
class LabelFont {
  private subset;
  private widths: number[];
  private unicode: number[][] = [[0]];
  constructor(readonly prepared: PreparedFont) {
    this.subset = prepared.font.createSubset();
    const notdef = prepared.font.getGlyph(0).advanceWidth;
    this.widths = [(notdef * 1000) / prepared.font.unitsPerEm];
  }

  /**
   * The text's glyphs, each with the kerning before it, as pdfkit sets them: fontkit's
   * shaping of each run of the text up to and with a space. A run is set from the kept
   * glyphs and pairs where each pair of it is two plain glyphs (nearly every run), and by
   * fontkit's shaper where a pair is not (a ligature: "fi" is one glyph); null if a
   * letter is not drawn here.
   */
  private set(text: string): Setting[] | null {
    const glyphs: Setting[] = [];
    for (const run of text.split(/(?<= )/)) {
      const set = this.setPlainly(run) ?? this.shape(run);
      if (!set) return null;
      glyphs.push(...set);
    }
    return glyphs;
  }

  /** A run from the kept glyphs and pairs; null where a letter or a pair is not plain. */
  private setPlainly(run: string): Setting[] | null {
    const glyphs: Setting[] = [];
    let previous: number | undefined;
    for (const letter of run) {
      const cp = letter.codePointAt(0)!;
      const glyph = glyphOf(this.prepared, cp);
      if (!glyph) return null;
      const kern = previous === undefined ? 0 : kernOf(this.prepared, previous, cp);
      if (kern === null) return null;
      glyphs.push({ codePoints: [cp], id: glyph.id, advance: glyph.advance, kern });
      previous = cp;
    }
    return glyphs;
  }

  /** A run as fontkit's shaper sets it (kept per run); null if it is not drawn here. */
  private shape(run: string): Setting[] | null {
    const { shaped, font } = this.prepared;
    let glyphs = shaped.get(run);
    if (glyphs === undefined) {
      glyphs = null;
      if ([...run].every((letter) => glyphOf(this.prepared, letter.codePointAt(0)!))) {
        const scale = 1000 / font.unitsPerEm;
        const { glyphs: found, positions } = (font as unknown as FontkitShaper).layout(run);
        const last = positions.length - 1;
        // Marks placed on letters, or an adjustment after the run's end, are not drawn here.
        if (
          positions.every((p) => !p.xOffset && !p.yOffset) &&
          positions[last]?.xAdvance === found[last]?.advanceWidth
        ) {
          glyphs = found.map((glyph, i) => ({
            codePoints: glyph.codePoints,
            id: glyph.id,
            advance: glyph.advanceWidth * scale,
            kern: i === 0 ? 0 : (positions[i - 1]!.xAdvance - found[i - 1]!.advanceWidth) * scale,
          }));
        }
      }
      if (shaped.size >= 10_000) shaped.clear();
      shaped.set(run, glyphs);
    }
    return glyphs;
  }

  /** Width in thousandths of the size, kerned; null if a letter is not drawn here. */
  measure(text: string): number | null {
    const letters = this.set(text);
    return letters && letters.reduce((width, { advance, kern }) => width + kern + advance, 0);
  }

  /**
   * The text as a TJ array of Identity-H glyphs with pdfkit's kerning between them, each
   * glyph taken into the subset; null if a letter is not drawn here.
   */
  encode(text: string): string | null {
    const letters = this.set(text);
    if (!letters) return null;
    let shown = '';
    for (const { codePoints, id, advance, kern } of letters) {
      if (kern !== 0) shown += `> ${num(-kern)} <`;
      const gid = this.subset.includeGlyph(id);
      this.widths[gid] ??= advance;
      this.unicode[gid] ??= codePoints;
      shown += gid.toString(16).padStart(4, '0');
    }
    return `[<${shown}>]`;
  }

  /** The font's five objects, numbered from `first`: Type0 font first. */
  objects(first: number): Buffer[] {
    const [type0, cidFont, descriptor, file, cmap] = [
      first,
      first + 1,
      first + 2,
      first + 3,
      first + 4,
    ] as const;
    const { baseName } = this.prepared;
    // A compound glyph's parts join the subset as it is encoded, after the drawn glyphs.
    // Level 1: 0.06 ms less per font than the default level, for 1 % more bytes.
    const fontFile = deflateSync(this.subset.encode(), { level: 1 });
    return [
      dict(
        type0,
        `/Type /Font /Subtype /Type0 /BaseFont /${baseName} /Encoding /Identity-H ` +
          `/DescendantFonts [${cidFont} 0 R] /ToUnicode ${cmap} 0 R`,
      ),
      dict(
        cidFont,
        `/Type /Font /Subtype /CIDFontType2 /BaseFont /${baseName} ` +
          `/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> ` +
          `/FontDescriptor ${descriptor} 0 R /W [0 [${this.widths.map(num).join(' ')}]] ` +
          `/CIDToGIDMap /Identity`,
      ),
      dict(descriptor, `${this.prepared.descriptor} /FontFile2 ${file} 0 R`),
      stream(file, '/Filter /FlateDecode', fontFile),
      stream(
        cmap,
        '/Filter /FlateDecode',
        deflateSync(Buffer.from(toUnicodeCmap(this.unicode), 'latin1')),
      ),
    ];
  }
}

/** The ToUnicode map of the subset's glyphs, as pdfkit writes it. */
function toUnicodeCmap(unicode: number[][]): string {
  const hex = (n: number) => n.toString(16).padStart(4, '0');
  const entries = unicode.map((cps) => `<${cps.map(hex).join('')}>`);
  const ranges: string[] = [];
  for (let start = 0; start < entries.length; start += 256) {
    const end = Math.min(start + 256, entries.length);
    ranges.push(`<${hex(start)}> <${hex(end - 1)}> [${entries.slice(start, end).join(' ')}]`);
  }
  return `/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CIDSystemInfo <<
  /Registry (Adobe)
  /Ordering (UCS)
  /Supplement 0
>> def
/CMapName /Adobe-Identity-UCS def
/CMapType 2 def
1 begincodespacerange
<0000><ffff>
endcodespacerange
${ranges.length} beginbfrange
${ranges.join('\n')}
endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end`;
}

/** A number as PDF writes it: at most three decimals, no exponent. */
function num(n: number): string {
  const rounded = Math.round(n * 1000) / 1000;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

function dict(id: number, body: string): Buffer {
  return Buffer.from(`${id} 0 obj\n<< ${body} >>\nendobj\n`, 'latin1');
}

function stream(id: number, entries: string, bytes: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`${id} 0 obj\n<< ${entries} /Length ${bytes.length} >>\nstream\n`, 'latin1'),
    bytes,
    Buffer.from('\nendstream\nendobj\n', 'latin1'),
  ]);
}

/** A string as a PDF literal string (ASCII; anything else as UTF-16BE text). */
function pdfString(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
  const units = Buffer.from(`\ufeff${text}`, 'utf16le').swap16();
  return `<${units.toString('hex')}>`;
}

// Objects: 1 catalog, 2 pages, 3 page, 4 content, 5 info, then each font's five.
const FIRST_FONT_OBJECT = 6;
let prepared: Record<FontName, PreparedFont> | undefined;
const fonts = () =>
  (prepared ??= {
    regular: prepareFont('regular', 'F1', 'PLTMPA'),
    bold: prepareFont('bold', 'F2', 'PLTMPB'),
  });

/** Why the template declines a label (pdfkit draws it). */
export class Unfit extends Error {}

/** pdfkit's PDFNumber: the float32 at or below a number. */
function pdfNumber(n: number): number {
  const rounded = Math.fround(n);
  if (rounded <= n) return rounded;
  const bits = new Float32Array([n]);
  const word = new Uint32Array(bits.buffer);
  word[0] = n <= 0 ? word[0]! + 1 : word[0]! - 1;
  return bits[0]!;
}

/** The content stream of one label, in PDF's own coordinates (y up from the page's foot). */
class Page {
  private ops: string[] = [];
  private fonts: Record<FontName, LabelFont>;
  constructor(
    readonly width: number,
    readonly height: number,
    prepared: Record<FontName, PreparedFont>,
  ) {
    this.fonts = { regular: new LabelFont(prepared.regular), bold: new LabelFont(prepared.bold) };
  }

  op(line: string): void {
    this.ops.push(line);
  }

  content(): string {
    return this.ops.join('\n');
  }

  /** Both fonts' objects, from FIRST_FONT_OBJECT: regular (F1), then bold (F2). */
  fontObjects(): Buffer[] {
    return [
      ...this.fonts.regular.objects(FIRST_FONT_OBJECT),
      ...this.fonts.bold.objects(FIRST_FONT_OBJECT + 5),
    ];
  }

  /** Width in points of `text` at `size`, or Unfit if a letter is not drawn here. */
  measure(font: FontName, text: string, size: number): number {
    const width = this.fonts[font].measure(text);
    if (width === null) {
      throw new Unfit(
        `${JSON.stringify(text)} has a letter not drawn here (or marks the shaper places)`,
      );
    }
    return (width * size) / 1000;
  }

  /** One line of text whose box's top is at `top` (pdfkit's y), starting at `x`. */
  line(font: FontName, size: number, text: string, x: number, top: number, spacing = 0): void {
    const f = this.fonts[font];
    const hex = f.encode(text);
    if (hex === null) throw new Unfit(`a letter of ${JSON.stringify(text)} is not drawn here`);
    const baseline = this.height - top - (f.prepared.ascender * size) / 1000;
    this.op(
      `BT 1 0 0 1 ${num(x)} ${num(baseline)} Tm /${f.prepared.resource} ${num(size)} Tf` +
        // Text state outlives ET: a spacing is set back to none after its line.
        (spacing ? ` ${num(spacing)} Tc ${hex} TJ 0 Tc ET` : ` ${hex} TJ ET`),
    );
  }

  /**
   * Lines as pdfkit's LineWrapper makes them of `pieces` (the text cut at each break
   * opportunity, as its line breaker cuts it) in a line `width` wide: a piece fits while its
   * width (LineWrapper.wordWidth: kerned within the piece, rounded to a float32 by
   * PDFNumber) is at most the space left.
   */
  private wrap(
    font: FontName,
    size: number,
    pieces: string[],
    width: number,
  ): { text: string; width: number }[] {
    const lines: { text: string; width: number }[] = [];
    let current = '';
    let used = 0;
    let spaceLeft = width;
    for (const piece of pieces) {
      const w = pdfNumber(this.measure(font, piece, size));
      if (w > width) {
        throw new Unfit(`a word of ${JSON.stringify(pieces.join(''))} is wider than its line`);
      }
      if (w <= spaceLeft) {
        current += piece;
        used += w;
        spaceLeft -= w;
        continue;
      }
      lines.push({ text: current, width: used });
      current = piece;
      used = w;
      spaceLeft = width - w;
    }
    lines.push({ text: current, width: used });
    return lines;
  }

  /**
   * `text` in a box `width` wide from `top`, aligned, in at most `maxLines` lines broken
   * where pdfkit's line wrapper breaks them; Unfit where it could not be drawn alike.
   */
  text(
    font: FontName,
    size: number,
    text: string,
    box: { x: number; top: number; width: number },
    { align = 'left', maxLines = 1 }: { align?: 'left' | 'center' | 'right'; maxLines?: number },
  ): void {
    // A soft hyphen changes how pdfkit fits its piece (and draws a hyphen at a break).
    if (text === '' || /\s\s|^\s|\s$|[^\S ]|\u00ad/u.test(text)) {
      throw new Unfit(
        `${JSON.stringify(text)} is empty or has spaces other than single ones between words`,
      );
    }
    // pdfkit's pieces: UAX 14's break opportunities (after a space, after a hyphen, not
    // before a comma…), from the line breaker pdfkit uses, so that a line is made of what
    // pdfkit's is made of and each piece is measured as pdfkit measures it.
    const pieces: string[] = [];
    const breaker = new LineBreaker(text);
    let start = 0;
    for (let at = breaker.nextBreak(); at; at = breaker.nextBreak()) {
      if (at.required && at.position < text.length) {
        throw new Unfit(`${JSON.stringify(text)} has a mandatory break`);
      }
      pieces.push(text.slice(start, at.position));
      start = at.position;
    }
    const lines = this.wrap(font, size, pieces, box.width);
    if (lines.length > maxLines) {
      throw new Unfit(`${JSON.stringify(text)} needs more than ${maxLines} lines`);
    }
    const lineHeight = (this.fonts[font].prepared.lineHeight * size) / 1000;
    lines.forEach((line, i) => {
      const offset =
        align === 'right'
          ? box.width - line.width
          : align === 'center'
            ? box.width / 2 - line.width / 2
            : 0;
      this.line(font, size, line.text.trimEnd(), box.x + offset, box.top + i * lineHeight);
    });
  }

  rule(y: number): void {
    const at = this.height - y;
    this.op(`${num(MARGIN)} ${num(at)} m ${num(this.width - MARGIN)} ${num(at)} l 1 w 0 0 0 RG S`);
  }

  /** A rectangle given as pdfkit's (top-left corner, y down). */
  rect(x: number, y: number, width: number, height: number): string {
    return `${num(x)} ${num(this.height - y - height)} ${num(width)} ${num(height)} re`;
  }
}

/**
 * The label from the template, or null where it would not look as pdfkit draws it (see
 * the module's comment): the caller renders that one with pdfkit.
 */
export function templateLabel(facts: LabelFacts, page: PdfPage = 'pdf'): Buffer | null {
  try {
    return drawTemplate(facts, page);
  } catch (error) {
    if (error instanceof Unfit) return null;
    throw error;
  }
}

/** The label from the template; throws Unfit (saying why) where templateLabel answers null. */
export function drawTemplate(
  { shipment, senderName, sandbox = false }: LabelFacts,
  page: PdfPage = 'pdf',
): Buffer {
  const prepared = fonts();
  const WIDTH = PDF_PAGES[page].width * MM;
  const HEIGHT = PDF_PAGES[page].height * MM;
  const INNER = WIDTH - 2 * MARGIN;
  const p = new Page(WIDTH, HEIGHT, prepared);
  {
    if (sandbox) {
      // SANDBOX across the label, turned 28° as pdfkit's rotate(-28) turns its y-down page.
      const rad = (28 * Math.PI) / 180;
      const [cos, sin] = [Math.cos(rad), Math.sin(rad)];
      const [ox, oy] = [WIDTH / 2, HEIGHT - 36 * MM];
      p.op(
        `q ${[cos, sin, -sin, cos, ox - ox * cos + oy * sin, oy - ox * sin - oy * cos].map(num).join(' ')} cm`,
      );
      p.op('0.784 0.784 0.784 rg');
      const w = p.measure('bold', 'SANDBOX', 46);
      p.line('bold', 46, 'SANDBOX', -WIDTH / 2 + WIDTH - w / 2, 28 * MM);
      p.op('Q 0 0 0 rg');
    } else {
      p.op('0 0 0 rg');
    }
    const header = sandbox ? SANDBOX_HEADER : 'PARCEL LOCKER';
    const headerPoints = headerSize(sandbox);
    p.text('bold', headerPoints, header, { x: MARGIN, top: MARGIN, width: INNER }, {});
    // label.ts: the sender in what the header leaves of the line.
    const headerWidth = p.measure('bold', header, headerPoints) + HEADER_GAP;
    const from = `From: ${senderName}`;
    const fromBox = { x: MARGIN + headerWidth, top: MARGIN + 3, width: INNER - headerWidth };
    const fromSize = fittedSize(p.measure('regular', from, 8), 0.97 * fromBox.width, 8, 5);
    p.text('regular', fromSize, from, fromBox, { align: 'right' });
    p.rule(12 * MM);

    const sizeBox = 24 * MM;
    const left = INNER - sizeBox - 3 * MM;
    p.text('regular', 7, 'DELIVER TO LOCKER', { x: MARGIN, top: 14 * MM, width: INNER }, {});
    // Two lines fit the 13 mm pdfkit is given for the station's name.
    p.text(
      'bold',
      14,
      shipment.station_name,
      { x: MARGIN, top: 17 * MM, width: left },
      {
        maxLines: 2,
      },
    );
    const cabinet = cabinetLine(shipment);
    // label.ts's shrunkToFit: the largest size to 5 pt at which it fits 97 % of the width
    // (never broken: where kerning moves pdfkit's size a tenth of a point, it stays one line).
    const atMax = p.measure('regular', cabinet, 9);
    const size = fittedSize(atMax, 0.97 * left, 9, 5);
    // Too long even at 5 pt, pdfkit's wrapper breaks it: Unfit.
    p.text('regular', size, cabinet, { x: MARGIN, top: 31 * MM, width: left }, {});
    p.op(`${p.rect(WIDTH - MARGIN - sizeBox, 14 * MM, sizeBox, 22 * MM)} 2 w 0 0 0 RG S`);
    const sizeColumn = { x: WIDTH - MARGIN - sizeBox, width: sizeBox };
    p.text('regular', 7, 'DOOR SIZE', { ...sizeColumn, top: 15.5 * MM }, { align: 'center' });
    p.text('bold', 34, shipment.parcel_size, { ...sizeColumn, top: 19 * MM }, { align: 'center' });
    p.rule(39 * MM);

    p.text('regular', 7, 'RECIPIENT', { x: MARGIN, top: 41 * MM, width: INNER }, {});
    p.text(
      'bold',
      16,
      shipment.recipient_name,
      { x: MARGIN, top: 44.5 * MM, width: INNER },
      {
        maxLines: 2,
      },
    );
    p.rule(60 * MM);

    const bars = barcodeModules(shipment.tracking_number);
    const box = barcodeBox(WIDTH);
    const module = box.width / bars.reduce((sum, w) => sum + w, 0);
    let at = box.x;
    const rects: string[] = [];
    bars.forEach((w, i) => {
      if (i % 2 === 0) rects.push(p.rect(at, box.y, w * module, box.height));
      at += w * module;
    });
    p.op(`${rects.join('\n')}\nf`);

    // pdfkit's characterSpacing: 2 pt after every letter, in the width it centres too.
    const tracking = shipment.tracking_number;
    const trackingWidth = p.measure('bold', tracking, 18) + 2 * [...tracking].length;
    if (trackingWidth > INNER) throw new Unfit('the tracking number is too wide for one line');
    p.line('bold', 18, tracking, MARGIN + INNER / 2 - trackingWidth / 2, 105 * MM, 2);
    p.rule(115 * MM);

    const foot = { x: MARGIN, width: INNER };
    const order = `Order: ${shipment.merchant_order_reference ?? '—'}`;
    p.text('regular', 9, order, { ...foot, top: 118 * MM }, {});
    const booked = `Booked: ${shipment.created_at.toISOString().slice(0, 10)}`;
    p.text('regular', 9, booked, { ...foot, top: 123 * MM }, {});
    p.text(
      'regular',
      9,
      `Language: ${shipment.recipient_language}`,
      { ...foot, top: 128 * MM },
      {},
    );
    if (sandbox) {
      p.op(`${p.rect(MARGIN, 136 * MM, INNER, 10 * MM)} f 1 1 1 rg`);
      p.text('bold', 10, SANDBOX_BAND, { ...foot, top: 139 * MM }, { align: 'center' });
      p.op('0 0 0 rg');
    } else {
      p.text('regular', 7, FOOT, { ...foot, top: 140 * MM }, { align: 'center' });
    }
  }
  return assemble(p, `Label ${shipment.tracking_number}`);
}

function assemble(p: Page, title: string): Buffer {
  const content = deflateSync(Buffer.from(p.content(), 'latin1'));
  const created = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const fontsDict = `/F1 ${FIRST_FONT_OBJECT} 0 R /F2 ${FIRST_FONT_OBJECT + 5} 0 R`;
  const objects = [
    dict(1, '/Type /Catalog /Pages 2 0 R'),
    dict(2, '/Type /Pages /Count 1 /Kids [3 0 R]'),
    dict(
      3,
      `/Type /Page /Parent 2 0 R /MediaBox [0 0 ${num(p.width)} ${num(p.height)}] ` +
        `/Contents 4 0 R /Resources << /ProcSet [/PDF /Text] /Font << ${fontsDict} >> >>`,
    ),
    stream(4, '/Filter /FlateDecode', content),
    dict(5, `/Producer (Parcel Locker) /Title ${pdfString(title)} /CreationDate (D:${created}Z)`),
    ...p.fontObjects(),
  ];
  const header = Buffer.from('%PDF-1.3\n%\xff\xff\xff\xff\n', 'latin1');
  const offsets: number[] = [];
  let at = header.length;
  for (const object of objects) {
    offsets.push(at);
    at += object.length;
  }
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 5 0 R >>\nstartxref\n${at}\n%%EOF\n`;
  return Buffer.concat([header, ...objects, Buffer.from(xref, 'latin1')]);
}
