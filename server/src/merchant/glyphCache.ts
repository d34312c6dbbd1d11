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
  loca: { offsets: number[] };
  directory: { tables: Record<string, unknown> };
  _variationProcessor?: unknown;
}

interface TrueTypeSubset {
  _addGlyph(gid: number): number;
  includeGlyph(gid: number): number;
  glyf: Uint8Array[];
  loca: { offsets: number[] };
  hmtx: { metrics: { advance: number; bearing: number }[] };
  offset: number;
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
  font.createSubset = () => {
    const subset = createSubset();
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
