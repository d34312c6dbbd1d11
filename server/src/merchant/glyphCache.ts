/**
 * fontkit's TrueType subsetting, with what it reads of each glyph kept per font.
 *
 * pdfkit embeds a subset of the label's fonts in every PDF; fontkit builds each subset
 * from scratch, decoding every glyph it includes from the font file again (its outline
 * header, its bytes, its metrics): about a fifth of a label's CPU in the profile
 * (server/bench/merchant-load.ts prints a label's CPU). A label uses a few dozen of the
 * same glyphs as the last, so those reads are made once per glyph and process here; what
 * each subset writes is byte for byte what fontkit writes (glyphCache.test.ts).
 */

interface Component {
  glyphID: number;
  /** Where the component's glyph id stands in the glyph's bytes. */
  pos: number;
}

/** What fontkit's `_addGlyph` reads of a glyph, read once. */
interface GlyphRead {
  bytes: Uint8Array;
  /** A compound glyph's parts, whose ids the subset renumbers; null for a simple glyph. */
  components: Component[] | null;
  advance: number;
  bearing: number;
}

/** The parts of fontkit's TrueType font and subset this relies on (fontkit 2.0). */
interface TrueTypeFont {
  createSubset(): TrueTypeSubset;
  getGlyph(
    id: number,
    codePoints?: number[],
  ): {
    codePoints: number[];
    advanceWidth: number;
    _decode(): { numberOfContours: number; components?: Component[] } | null;
    _getMetrics(): { leftBearing: number };
  };
  _getTableStream(tag: string): { pos: number; readBuffer(length: number): Uint8Array };
  loca: { offsets: number[]; version: number };
  directory: { tables: Record<string, { length: number } | undefined> };
  _variationProcessor?: unknown;
}

interface TrueTypeSubset {
  glyphs: number[];
  _addGlyph(gid: number): number;
  encode(): Uint8Array;
  includeGlyph(gid: number): number;
  glyf: Uint8Array[];
  loca: { offsets: number[]; version: number };
  hmtx: { metrics: { advance: number; bearing: number }[]; bearings: number[] };
  offset: number;
}

/** A table of the font as it lies in the file. */
function rawTable(font: TrueTypeFont, tag: string): Uint8Array {
  const entry = font.directory.tables[tag];
  if (!entry) return new Uint8Array(0);
  return Uint8Array.from(font._getTableStream(tag).readBuffer(entry.length));
}

/**
 * fontkit's TTFSubset.encode, written straight: the same tables in the same order (head,
 * hhea, loca, maxp, cvt, prep, glyf, hmtx, fpgm) behind the same directory (tag 'true',
 * checksums 0, no padding), byte for byte. fontkit decodes the font's fixed tables (its
 * hinting programs and control values, ≈2 kB) and encodes them again value by value
 * through its struct library for every subset: most of a subset's 0.9 ms. Here they are
 * the file's bytes, read once; only the counts a subset changes are written.
 */
function encoder(font: TrueTypeFont): (subset: TrueTypeSubset) => Uint8Array {
  const head = rawTable(font, 'head');
  const hhea = rawTable(font, 'hhea');
  const maxp = rawTable(font, 'maxp');
  const fixed = { 'cvt ': rawTable(font, 'cvt '), prep: rawTable(font, 'prep') };
  const fpgm = rawTable(font, 'fpgm');
  return (subset) => {
    subset.glyf = [];
    subset.offset = 0;
    subset.loca = { offsets: [], version: font.loca.version };
    subset.hmtx = { metrics: [], bearings: [] };
    for (let i = 0; i < subset.glyphs.length; i++) subset._addGlyph(subset.glyphs[i]!);
    subset.loca.offsets.push(subset.offset);
    const count = subset.glyf.length;

    const headOut = Uint8Array.from(head);
    new DataView(headOut.buffer).setInt16(50, font.loca.version);
    const hheaOut = Uint8Array.from(hhea);
    new DataView(hheaOut.buffer).setUint16(34, subset.hmtx.metrics.length);
    const maxpOut = Uint8Array.from(maxp);
    new DataView(maxpOut.buffer).setUint16(4, count);
    const short = font.loca.version === 0;
    const loca = new Uint8Array(subset.loca.offsets.length * (short ? 2 : 4));
    const locaView = new DataView(loca.buffer);
    subset.loca.offsets.forEach((offset, i) =>
      short ? locaView.setUint16(i * 2, offset >>> 1) : locaView.setUint32(i * 4, offset),
    );
    const hmtx = new Uint8Array(subset.hmtx.metrics.length * 4);
    const hmtxView = new DataView(hmtx.buffer);
    subset.hmtx.metrics.forEach(({ advance, bearing }, i) => {
      hmtxView.setUint16(i * 4, advance);
      hmtxView.setInt16(i * 4 + 2, bearing);
    });
    const glyf = new Uint8Array(subset.offset);
    let at = 0;
    for (const bytes of subset.glyf) {
      glyf.set(bytes, at);
      at += bytes.length;
    }
    const tables: [string, Uint8Array][] = [
      ['head', headOut],
      ['hhea', hheaOut],
      ['loca', loca],
      ['maxp', maxpOut],
      ['cvt ', fixed['cvt ']],
      ['prep', fixed.prep],
      ['glyf', glyf],
      ['hmtx', hmtx],
      ['fpgm', fpgm],
    ].filter(([tag]) => font.directory.tables[tag as string]) as [string, Uint8Array][];
    const directory = 12 + 16 * tables.length;
    const out = new Uint8Array(directory + tables.reduce((sum, [, t]) => sum + t.length, 0));
    const view = new DataView(out.buffer);
    const power = 2 ** Math.floor(Math.log2(tables.length));
    out.set([0x74, 0x72, 0x75, 0x65]); // 'true'
    view.setUint16(4, tables.length);
    view.setUint16(6, power * 16);
    view.setUint16(8, Math.log2(power));
    view.setUint16(10, tables.length * 16 - power * 16);
    let offset = directory;
    tables.forEach(([tag, bytes], i) => {
      const entry = 12 + 16 * i;
      for (let c = 0; c < 4; c++) out[entry + c] = tag.charCodeAt(c);
      view.setUint32(entry + 8, offset);
      view.setUint32(entry + 12, bytes.length);
      out.set(bytes, offset);
      offset += bytes.length;
    });
    return out;
  };
}

function readGlyph(font: TrueTypeFont, gid: number): GlyphRead {
  const glyph = font.getGlyph(gid);
  const outline = glyph._decode();
  const start = font.loca.offsets[gid]!;
  const stream = font._getTableStream('glyf');
  stream.pos += start;
  const bytes = Uint8Array.from(stream.readBuffer(font.loca.offsets[gid + 1]! - start));
  const compound = outline !== null && outline.numberOfContours < 0;
  return {
    bytes,
    components: compound
      ? (outline.components ?? []).map(({ glyphID, pos }) => ({ glyphID, pos }))
      : null,
    advance: glyph.advanceWidth,
    bearing: glyph._getMetrics().leftBearing,
  };
}

/**
 * Makes `font`'s subsets read each glyph once, and keeps each glyph's letters for the text
 * layer. For fonts fontkit subsets another way (CFF outlines, variable fonts) the font is
 * left as it is. Answers the font, for chaining.
 */
export function withGlyphCache<F>(parsed: F): F {
  const font = parsed as unknown as TrueTypeFont;
  if (font.directory.tables['CFF '] || font._variationProcessor) return parsed;
  const reads = new Map<number, GlyphRead>();
  // fontkit keeps one glyph object per id and font, with the letters of the first call
  // that made it. A subset reads a compound glyph's parts (the 'u' of 'ü') with none, and
  // pdfkit's text layer maps each glyph to its object's letters: every later document
  // then lost that letter when copied or searched. A glyph asked for with its letters
  // gets them, whoever made it first.
  const getGlyph = font.getGlyph.bind(font);
  font.getGlyph = (id, codePoints) => {
    const glyph = getGlyph(id, codePoints);
    if (codePoints?.length && !glyph.codePoints?.length) glyph.codePoints = codePoints;
    return glyph;
  };
  const createSubset = font.createSubset.bind(font);
  const encode = encoder(font);
  font.createSubset = () => {
    const subset = createSubset();
    subset.encode = () => encode(subset);
    // fontkit's TTFSubset._addGlyph, with the glyph's reads from the cache.
    subset._addGlyph = function addGlyph(this: TrueTypeSubset, gid: number): number {
      let read = reads.get(gid);
      if (!read) reads.set(gid, (read = readGlyph(font, gid)));
      let bytes = read.bytes;
      if (read.components) {
        bytes = new Uint8Array(read.bytes);
        const view = new DataView(bytes.buffer);
        for (const part of read.components)
          view.setUint16(part.pos, this.includeGlyph(part.glyphID));
      }
      this.glyf.push(bytes);
      this.loca.offsets.push(this.offset);
      this.hmtx.metrics.push({ advance: read.advance, bearing: read.bearing });
      this.offset += bytes.length;
      return this.glyf.length - 1;
    };
    return subset;
  };
  return parsed;
}
