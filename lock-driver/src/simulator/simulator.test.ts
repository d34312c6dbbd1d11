import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hex } from '../protocol/frame';
import { SimulatedCabinet } from './cabinet';
import { RequestParser, type Discard } from './requestParser';

const bytes = (text: string) => Buffer.from(text.replace(/ /g, ''), 'hex');

/** Sends request bytes to a cabinet the way a wire does; answers in hex. */
function ask(cabinet: SimulatedCabinet, text: string): string[] {
  return new RequestParser().push(bytes(text)).flatMap((r) => cabinet.handle(r).map(hex));
}

describe('the simulated board, as strict as a KR-CU16', () => {
  it('drops a stray byte before a request without stalling it', () => {
    const dropped: Discard[] = [];
    const parser = new RequestParser(20, (d) => dropped.push(d));
    expect(parser.push(bytes('02 02 00 30 03 35')).map((r) => hex(r.raw))).toEqual([
      '02 00 30 03 35',
    ]);
    expect(dropped).toEqual([{ bytes: bytes('02'), why: 'stray' }]);
  });

  it('throws away a request whose bytes stop for longer than the inter-byte timeout', () => {
    const dropped: Discard[] = [];
    const parser = new RequestParser(20, (d) => dropped.push(d));
    expect(parser.push(bytes('02 00 30'), 0)).toEqual([]);
    expect(parser.push(bytes('03 35'), 50)).toEqual([]);
    expect(dropped[0]).toEqual({ bytes: bytes('02 00 30'), why: 'inter-byte timeout' });
    expect(parser.push(bytes('02 00 30 03 35'), 60)).toHaveLength(1);
  });

  it('answers the vendor examples byte for byte', () => {
    // Board 0 with locks 1 to 4 closed and an item in lock 1, as in the vendor's frames.
    const cabinet = new SimulatedCabinet({ boards: 2, itemsAt: [1], busyAfterUnlockMs: 0 });
    for (let p = 5; p <= 16; p++) cabinet.openDoor(p);
    expect(ask(cabinet, '02 00 30 03 35')).toEqual(['02 00 35 0F 00 01 00 03 4A']);
    expect(ask(cabinet, '02 00 37 03 3C')).toEqual(['02 00 38 0F 00 00 37 03 83']);
    expect(ask(cabinet, '02 00 37 00 64 03 A0')).toEqual(['02 00 38 00 00 00 64 03 A1']);
    expect(ask(cabinet, '02 00 40 01 03 46')).toEqual(['02 00 40 01 00 00 01 03 47']);
    expect(ask(cabinet, '02 02 31 03 38')).toEqual([]);
  });

  it('answers 0x32 at F0 and at 00 with one frame per board, and 0x39 like 0x30', () => {
    const cabinet = new SimulatedCabinet({ boards: 2 });
    const all = ['02 00 36 FF FF 00 00 03 39', '02 10 36 FF FF 00 00 03 49'];
    expect(ask(cabinet, '02 F0 32 03 27')).toEqual(all);
    expect(ask(cabinet, '02 00 32 03 37')).toEqual(all);
    expect(ask(cabinet, '02 13 39 03 51')).toEqual(['02 10 35 FF FF 00 00 03 48']);
  });

  it('applies the F0 forms of 0x37 and 0x40 on every board, each answering in turn', () => {
    const cabinet = new SimulatedCabinet({ boards: 2 });
    expect(ask(cabinet, '02 F0 37 00 64 03 90')).toEqual([
      '02 00 38 00 00 00 64 03 A1',
      '02 10 38 00 00 00 64 03 B1',
    ]);
    expect(cabinet.unlockUnits).toEqual([100, 100]);
    expect(ask(cabinet, '02 F0 40 02 03 37')).toHaveLength(2);
  });

  it('answers the firmware query F5 with B6', () => {
    const cabinet = new SimulatedCabinet({ boards: 1 });
    expect(ask(cabinet, '02 00 F5 03 FA')).toEqual(['02 00 B6 01 06 00 2A 03 EC']);
  });

  it('is silent for a dead board and for a board still busy with its pulse', () => {
    const cabinet = new SimulatedCabinet({ boards: 2, deadBoards: [1], busyAfterUnlockMs: 1000 });
    expect(ask(cabinet, '02 10 30 03 45')).toEqual([]);
    ask(cabinet, '02 00 31 03 36');
    expect(ask(cabinet, '02 00 30 03 35')).toEqual([]);
  });

  it('keeps the doors’ contents in its state file across restarts', () => {
    const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'simstate-')), 'doors.json');
    const first = new SimulatedCabinet({ boards: 1, stateFile, itemsAt: [3] });
    first.setItem(7, true);
    first.openDoor(9);
    const again = new SimulatedCabinet({ boards: 1, stateFile, itemsAt: [] });
    expect(again.door(3)).toEqual({ closed: true, itemPresent: true });
    expect(again.door(7)).toEqual({ closed: true, itemPresent: true });
    expect(again.door(9)).toEqual({ closed: false, itemPresent: false });
  });
});
