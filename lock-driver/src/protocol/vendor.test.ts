import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Bus } from '../bus';
import { mockBoard } from '../../test/mockBoard';
import { BAUD_RATES, hex } from './frame';
import { requests } from './requests';
import { F5, decodeVendorFrame, decodeVersion, isVersionQuery, versionQuery } from './vendor';

const bytes = (text: string) => Buffer.from(text.replace(/ /g, ''), 'hex');
const SRC = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** Every frame the driver's request builders can make, over every argument they take. */
function everyRequest(): Buffer[] {
  const frames: Buffer[] = [requests.statusAll()];
  for (let board = 0; board <= 9; board++) {
    frames.push(requests.status(board), requests.openAll(board), requests.queryUnlockTime(board));
    for (let lock = 0; lock < 16; lock++) frames.push(requests.unlock(board, lock));
    for (let ms = 0; ms <= 60_000; ms += 10) frames.push(requests.setUnlockTime(board, ms));
    for (let s = 0; s <= 250; s++) frames.push(requests.setUnlockDelay(board, s));
    for (const baud of BAUD_RATES) frames.push(requests.setBaud(board, baud));
  }
  for (let board = 0; board <= 0x10; board++) frames.push(requests.version(board));
  return frames;
}

describe('the vendor’s F5 framing', () => {
  it('builds the version query exactly as the vendor writes it', () => {
    expect(hex(versionQuery(0))).toBe('F5 B6 00 00 5F 0A');
    expect(hex(requests.version(0))).toBe('F5 B6 00 00 5F 0A');
    expect(hex(versionQuery(9))).toBe('F5 B6 09 00 5F 13');
    for (const bad of [-1, 0x11, 0x64, 1.5]) expect(() => versionQuery(bad)).toThrow(RangeError);
  });

  it('reads software and hardware version from the B6 reply', () => {
    const frame = decodeVendorFrame(bytes('F5 B6 00 02 5F 0E 01 01'))!;
    expect(frame).toMatchObject({ framing: 'f5', cmd: 0xb6, board: 0 });
    expect(decodeVersion(frame)).toEqual({ software: 1, hardware: 1 });
    expect(decodeVersion(decodeVendorFrame(bytes('F5 B6 07 02 5F 18 04 01'))!)).toEqual({
      software: 4,
      hardware: 1,
    });
    expect(decodeVendorFrame(bytes('F5 B6 00 02 5F 0F 01 01'))).toBeUndefined();
  });

  it('cannot build any F5 frame but the version query: no builder, over every argument, makes one', () => {
    const f5 = everyRequest().filter((frame) => frame[0] === F5);
    expect(f5).toHaveLength(17);
    expect(f5.every(isVersionQuery)).toBe(true);
    expect(f5.every((frame) => frame[1] === 0xb6 && frame[3] === 0)).toBe(true);
  });

  it('has no F5 encoder outside the simulator, and no mention of command B5 in the driver', () => {
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== 'simulator') walk(full);
        } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
          sources.push(full);
      }
    };
    walk(SRC);
    expect(sources.length).toBeGreaterThan(20);
    for (const file of sources) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/simulator\/f5/);
      expect(text, file).not.toMatch(/0xb5\b/i);
    }
    expect(readFileSync(path.join(SRC, 'index.ts'), 'utf8')).not.toMatch(/encodeF5/);
  });
});

describe('the bus sends no F5 frame but the version query', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('refuses F5 B5 (it erases the board) and any other F5 frame, writing nothing', async () => {
    const board = mockBoard({ boards: 1 });
    await board.transport.open();
    closers.push(() => board.transport.close());
    const bus = new Bus(board.transport, { replyTimeoutMs: 100 });
    const upgrade = bytes('F5 B5 00 04 5F E7 35 36 37 38');
    for (const frame of [upgrade, bytes('F5 B6 00 01 5F 0B 00'), bytes('F5 B6 64 00 5F 6E')])
      await expect(
        bus.request({ bytes: frame, expect: { kind: 'one', match: () => true } }),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(bus.version(upgrade, 0)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(board.written).toEqual([]);
    expect(board.cabinet.isErased(0)).toBe(false);
    expect(hex((await bus.version(versionQuery(0), 0)).raw)).toBe('F5 B6 00 02 5F 0E 01 01');
  });
});
