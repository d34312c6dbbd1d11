import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCabinetFile, writeCabinetFile } from './file';
import { CabinetSchema, defaultCabinet } from './schema';

const issues = (raw: unknown) => {
  const parsed = CabinetSchema.safeParse(raw);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('the cabinet file', () => {
  it('derives a default cabinet: default mapping, columns of 8', () => {
    const cabinet = defaultCabinet(2);
    expect(cabinet.boards).toEqual([0, 1]);
    expect(cabinet.hookBitMeansClosed).toBe(true);
    expect(cabinet.layout.columns).toHaveLength(4);
    expect(cabinet.layout.columns[3]).toEqual([25, 26, 27, 28, 29, 30, 31, 32]);
  });

  it('refuses two positions on one lock, naming the override', () => {
    expect(issues({ boards: [0, 1], positionOverrides: { 17: { board: 0, lock: 0 } } })).toEqual([
      'positionOverrides.17: positions 1 and 17 are both on board 0, lock 0: map one of them elsewhere (or to null)',
    ]);
    // A swap, or a position taken out, is fine.
    expect(
      issues({
        boards: [0, 1],
        positionOverrides: { 1: { board: 1, lock: 15 }, 32: { board: 0, lock: 0 } },
      }),
    ).toEqual([]);
    expect(
      issues({ boards: [0, 1], positionOverrides: { 1: null, 17: { board: 0, lock: 0 } } }),
    ).toEqual([]);
  });

  it('names each mistake with its field: boards 0-9, locks 0-15, boards listed, layout', () => {
    expect(
      issues({
        boards: [0, 10, 0],
        positionOverrides: { 5: { board: 0, lock: 16 }, x: null, 6: { board: 3, lock: 0 } },
      }),
    ).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^boards\.1: /),
        expect.stringMatching(/^positionOverrides\.5\.lock: /),
        expect.stringMatching(/^positionOverrides\.x: /),
      ]),
    );
    expect(issues({ boards: [0, 0] })).toEqual(['boards.1: board 0 listed twice']);
    expect(issues({ boards: [0], positionOverrides: { 6: { board: 3, lock: 0 } } })).toEqual([
      'positionOverrides.6.board: board 3 is not in "boards"',
    ]);
    const layout = issues({
      boards: [0],
      layout: { columns: [[1, 2, 2, 17], [...Array(13).keys()].map((i) => i + 3)] },
    });
    expect(layout).toEqual([
      'layout.columns.0.2: position 2 placed twice',
      'layout.columns.0.3: position 17 is not a door of this cabinet',
      'layout.columns: doors missing from the layout: 16',
    ]);
  });

  it('loads and writes a file, reporting the file and the field', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cabinet-'));
    const file = path.join(dir, 'cabinet.json');
    writeCabinetFile(file, { boards: [0, 2], hookBitMeansClosed: false });
    expect(loadCabinetFile(file)).toMatchObject({ boards: [0, 2], hookBitMeansClosed: false });
    writeFileSync(
      file,
      JSON.stringify({ boards: [0], positionOverrides: { 3: { board: 0, lock: 99 } } }),
    );
    expect(() => loadCabinetFile(file)).toThrow(
      `${file} has mistakes:\n  positionOverrides.3.lock:`,
    );
    writeFileSync(file, '{ nope');
    expect(() => loadCabinetFile(file)).toThrow(/is not valid JSON/);
    expect(() => loadCabinetFile(path.join(dir, 'none.json'))).toThrow(/not found/);
  });

  it('keeps each board’s commissioned settings, optional so older files still load', () => {
    expect(issues({ boards: [0] })).toEqual([]);
    const file = {
      boards: [0, 1],
      boardSettings: {
        0: { software: 1, hardware: 1, unlockTimeMs: 550, unlockDelayS: 0, baud: 19200 },
        1: { software: 4 },
      },
      commissionedAt: '2025-01-01T00:00:00.000Z',
    };
    expect(issues(file)).toEqual([]);
    expect(CabinetSchema.parse(file).boardSettings?.['0']).toEqual(file.boardSettings[0]);
    expect(
      issues({ boards: [0], boardSettings: { 3: {}, 0: { baud: 300, unlockDelayS: 251 } } }),
    ).toEqual([
      'boardSettings.0.unlockDelayS: Too big: expected number to be <=250',
      'boardSettings.0.baud: one of 9600, 19200, 57600, 115200',
      'boardSettings.3: board 3 is not in "boards"',
    ]);
  });

  it('keeps door handle heights by position, refusing a position that is no door or a height off the scale', () => {
    const cabinet = CabinetSchema.parse({ boards: [0], handleHeightsMm: { 1: 1650, 16: 450 } });
    expect(cabinet.handleHeightsMm).toEqual({ 1: 1650, 16: 450 });
    expect(issues({ boards: [0], handleHeightsMm: { 17: 900, 2: 4000 } })).toEqual([
      'handleHeightsMm.2: Too big: expected number to be <=3000',
      'handleHeightsMm.17: position 17 is not a door of this cabinet',
    ]);
  });
});
