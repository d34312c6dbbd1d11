import * as fontkit from 'fontkit';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { withGlyphCache } from './glyphCache';

const fontDir = path.join(
  path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')),
  'ttf',
);

// Recipient names in the languages labels meet, accents that DejaVu draws as compound
// glyphs (a base letter and a mark) among them, and the fixed words of the label.
const TEXTS = [
  'PARCEL LOCKER DELIVER TO LOCKER DOOR SIZE RECIPIENT',
  'Katarzyna Wójcik-Łęczyńska',
  'Zoë Çelik, Ağrı Şişli, İğdır ıı',
  'Đorđe Šćepanović Čačak Ђорђе Шћепановић',
  'Shqipëri Prishtinë ç ë',
  'ǅ ǈ ǋ Ǻ ǽ ȫ ṩ ẞ',
];

interface Subset {
  includeGlyph(id: number): number;
  encode(): Uint8Array;
}
const newSubset = (font: fontkit.Font) =>
  (font as unknown as { createSubset(): Subset }).createSubset();

/** Each text's subset, encoded; pdfkit embeds exactly such a subset. */
function subsets(font: fontkit.Font): Buffer[] {
  return TEXTS.map((text) => {
    const subset = newSubset(font);
    for (const glyph of font.layout(text).glyphs) subset.includeGlyph(glyph.id);
    return Buffer.from(subset.encode());
  });
}

describe('fontkit subsets with each glyph read once', () => {
  it('encode byte for byte what fontkit encodes, compound glyphs included, again and again', () => {
    for (const file of ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf']) {
      const bytes = readFileSync(path.join(fontDir, file));
      const plain = subsets(fontkit.create(bytes) as fontkit.Font);
      const cached = withGlyphCache(fontkit.create(bytes) as fontkit.Font);
      // The second pass reads every glyph from the cache.
      expect(subsets(cached)).toEqual(plain);
      expect(subsets(cached)).toEqual(plain);
    }
  });

  it('reads a compound glyph once: its parts are renumbered in each subset, not in the cache', () => {
    const font = withGlyphCache(
      fontkit.create(readFileSync(path.join(fontDir, 'DejaVuSans.ttf'))) as fontkit.Font,
    );
    const layout = (text: string) => font.layout(text).glyphs.map((g) => g.id);
    // Ǻ (A, ring, acute) is compound in DejaVu: first alone, then after other glyphs, so its
    // parts get other numbers in the second subset.
    const [compound] = layout('Ǻ');
    const outline = (
      font.getGlyph(compound!) as unknown as { _decode(): { numberOfContours: number } }
    )._decode();
    expect(outline.numberOfContours).toBeLessThan(0);
    const first = newSubset(font);
    first.includeGlyph(compound!);
    const second = newSubset(font);
    for (const id of layout('xyz')) second.includeGlyph(id);
    second.includeGlyph(compound!);
    const reference = newSubset(
      fontkit.create(readFileSync(path.join(fontDir, 'DejaVuSans.ttf'))) as fontkit.Font,
    );
    for (const id of layout('xyz')) reference.includeGlyph(id);
    reference.includeGlyph(compound!);
    expect(Buffer.from(first.encode())).not.toEqual(Buffer.from(second.encode()));
    expect(Buffer.from(second.encode())).toEqual(Buffer.from(reference.encode()));
  });

  it("keeps every glyph's letters for the text layer after a subset took it as a compound's part", async () => {
    // 'ë', 'ç' and 'ü' are drawn as a base letter and a mark: subsetting them reads 'e', 'c'
    // and 'u' without their letters. Those glyph objects stay in fontkit's per-font cache,
    // so a later document's text layer (pdfkit's ToUnicode map) had no letter for them:
    // copying or searching a later label lost them (the printed page was right).
    const font = withGlyphCache(fontkit.create(readFileSync(path.join(fontDir, 'DejaVuSans.ttf'))));
    const pdf = (text: string) =>
      new Promise<Buffer>((resolve) => {
        const doc = new PDFDocument({ font: null as unknown as string });
        const chunks: Buffer[] = [];
        doc.on('data', (chunk: Buffer) => chunks.push(chunk));
        doc.on('end', () => resolve(Buffer.concat(chunks)));
        doc.registerFont('f', font as unknown as string);
        doc.font('f').text(text);
        doc.end();
      });
    const dir = mkdtempSync(path.join(tmpdir(), 'glyphs-'));
    const textOf = (bytes: Buffer) => {
      writeFileSync(path.join(dir, 'doc.pdf'), bytes);
      return execFileSync('pdftotext', ['-raw', path.join(dir, 'doc.pdf'), '-'], {
        encoding: 'utf8',
      });
    };
    expect(textOf(await pdf('Prishtinë Çelik Müller'))).toContain('Prishtinë Çelik Müller');
    expect(textOf(await pdf('cabinet queue section'))).toContain('cabinet queue section');
  });
});
