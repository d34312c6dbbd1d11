import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checksum, hex } from '../protocol/frame';
import { f5Checksum } from '../protocol/vendor';
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

/** Board `board` with exactly `closed` locks shut and items in `items` (1-based locks). */
function doors(cabinet: SimulatedCabinet, board: number, closed: number[], items: number[] = []) {
  for (let lock = 1; lock <= 16; lock++) {
    const position = board * 16 + lock;
    if (closed.includes(lock)) cabinet.closeDoor(position, items.includes(lock));
    else {
      cabinet.openDoor(position);
      cabinet.setItem(position, items.includes(lock));
    }
  }
}

/**
 * Every example of shared/hardware/kerong-cu16.md, in the order the document gives them:
 * the cabinet as the vendor's words describe it, the request, the replies. Where the
 * document elides a frame (`02 10 … 03 50`), the elided bytes are those of the frame
 * before it, which the SUM given confirms.
 */
const VENDOR_EXAMPLES: {
  what: string;
  boards: number;
  setup?: (c: SimulatedCabinet) => void;
  request: string;
  replies: string[];
}[] = [
  {
    what: '0x30 status of one board: lock 1 locked, item in 1',
    boards: 1,
    setup: (c) => doors(c, 0, [1], [1]),
    request: '02 00 30 03 35',
    replies: ['02 00 35 01 00 01 00 03 3C'],
  },
  {
    what: '0x31 unlock board 0 lock 3: no reply',
    boards: 1,
    request: '02 02 31 03 38',
    replies: [],
  },
  {
    what: '0x32 status of all boards, RCMD 0x36',
    boards: 2,
    setup: (c) => {
      doors(c, 0, [9, 10], [1]);
      doors(c, 1, [1], [12]);
    },
    request: '02 F0 32 03 27',
    replies: ['02 00 36 00 03 01 00 03 3F', '02 10 36 01 00 00 08 03 54'],
  },
  {
    what: '0x33 open every lock of one board in turn',
    boards: 1,
    setup: (c) => doors(c, 0, [1, 2, 3, 4], [1]),
    request: '02 00 33 03 38',
    replies: ['02 00 35 0F 00 01 00 03 4A'],
  },
  {
    what: '0x37 query unlock pulse time (550 ms)',
    boards: 1,
    setup: (c) => doors(c, 0, [1, 2, 3, 4]),
    request: '02 00 37 03 3C',
    replies: ['02 00 38 0F 00 00 37 03 83'],
  },
  {
    what: '0x37 set unlock pulse to 1000 ms',
    boards: 1,
    setup: (c) => doors(c, 0, []),
    request: '02 00 37 00 64 03 A0',
    replies: ['02 00 38 00 00 00 64 03 A1'],
  },
  {
    what: "0x37 query every board's unlock time",
    boards: 2,
    setup: (c) => {
      doors(c, 0, [1, 2, 3, 4]);
      doors(c, 1, []);
    },
    request: '02 F0 37 03 2C',
    replies: ['02 00 38 0F 00 00 37 03 83', '02 10 38 00 00 00 37 03 84'],
  },
  {
    what: '0x39 set the delayed unlock of board 0 to 1 s: lock 1 locked, item in 9',
    boards: 1,
    setup: (c) => doors(c, 0, [1], [9]),
    request: '02 00 39 01 03 3F',
    replies: ['02 00 39 01 00 00 01 03 40'],
  },
  {
    what: '0x39 the same for every board',
    boards: 4,
    setup: (c) => [0, 1, 2, 3].forEach((b) => doors(c, b, [1], [9])),
    request: '02 F0 39 01 03 2F',
    replies: [
      '02 00 39 01 00 00 01 03 40',
      '02 10 39 01 00 00 01 03 50',
      '02 20 39 01 00 00 01 03 60',
      '02 30 39 01 00 00 01 03 70',
    ],
  },
  {
    what: '0x40 set baud 19200 (code 1): hook bits in D1 D2, the code in D4',
    boards: 1,
    setup: (c) => doors(c, 0, [1]),
    request: '02 00 40 01 03 46',
    replies: ['02 00 40 01 00 00 01 03 47'],
  },
  {
    what: '0x40 set every board to 9600',
    boards: 2,
    setup: (c) => [0, 1].forEach((b) => doors(c, b, [])),
    request: '02 F0 40 00 03 35',
    replies: ['02 00 40 00 00 00 00 03 45', '02 10 40 00 00 00 00 03 55'],
  },
  {
    what: 'F5 B6 software and hardware version of board 0',
    boards: 1,
    request: 'F5 B6 00 00 5F 0A',
    replies: ['F5 B6 00 02 5F 0E 01 01'],
  },
  {
    what: "F5 B6 every board's version: boards 2, 5 and 7 answer",
    boards: 8,
    setup: (c) => {
      [0, 1, 3, 4, 6].forEach((b) => c.setResponsive(b, false));
      [2, 5, 7].forEach((b) => c.setVersion(b, 4, 1));
    },
    request: 'F5 B6 64 00 5F 6E',
    replies: ['F5 B6 02 02 5F 13 04 01', 'F5 B6 05 02 5F 16 04 01', 'F5 B6 07 02 5F 18 04 01'],
  },
  {
    what: 'F5 B5 enter firmware upgrade mode (erases the board)',
    boards: 1,
    request: 'F5 B5 00 04 5F E7 35 36 37 38',
    replies: ['F5 B5 00 00 5F 09'],
  },
];

describe('every example of the vendor’s document, byte for byte', () => {
  it('lists only frames whose SUM holds by the vendor’s rules', () => {
    for (const { request, replies } of VENDOR_EXAMPLES)
      for (const text of [request, ...replies]) {
        const b = bytes(text);
        const sum = b[0] === 0xf5 ? f5Checksum(b) : checksum(b, b.length - 1);
        expect(sum, text).toBe(b[b[0] === 0xf5 ? 5 : b.length - 1]);
      }
  });

  it.each(VENDOR_EXAMPLES)('$what: $request', ({ boards, setup, request, replies }) => {
    const cabinet = new SimulatedCabinet({ boards, busyAfterUnlockMs: 0 });
    setup?.(cabinet);
    expect(ask(cabinet, request)).toEqual(replies);
    cabinet.stop();
  });
});

describe('what the vendor’s settings do on the simulated board', () => {
  it('answers F5 B5 as the vendor says, then nothing more: its application is erased', () => {
    const cabinet = new SimulatedCabinet({ boards: 1 });
    expect(ask(cabinet, 'F5 B5 00 04 5F E7 35 36 37 38')).toEqual(['F5 B5 00 00 5F 09']);
    expect(cabinet.isErased(0)).toBe(true);
    expect(ask(cabinet, '02 00 30 03 35')).toEqual([]);
    expect(ask(cabinet, 'F5 B6 00 00 5F 0A')).toEqual([]);
  });

  it('opens a door its delayed unlock later, and a value over 250 s leaves the delay as it was', async () => {
    const cabinet = new SimulatedCabinet({ boards: 1, openDelayMs: 0, busyAfterUnlockMs: 0 });
    ask(cabinet, '02 00 39 01 03 3F');
    expect(cabinet.unlockDelayS[0]).toBe(1);
    ask(cabinet, '02 00 39 FB 03 39'); // 251 s: unchanged
    expect(cabinet.unlockDelayS[0]).toBe(1);
    const pulsed = performance.now();
    const opened = new Promise<number>((resolve) =>
      cabinet.once('door', () => resolve(performance.now())),
    );
    ask(cabinet, '02 02 31 03 38');
    expect(cabinet.door(3).closed).toBe(true);
    expect((await opened) - pulsed).toBeGreaterThanOrEqual(990);
    expect(cabinet.door(3).closed).toBe(false);
    ask(cabinet, '02 00 39 00 03 3E');
    expect(cabinet.unlockDelayS[0]).toBe(0);
  });

  it('switches rate after its 0x40 echo and then hears only requests at that rate', () => {
    const cabinet = new SimulatedCabinet({ boards: 1 });
    const at = (rate: number, text: string) =>
      new RequestParser().push(bytes(text)).flatMap((r) => cabinet.handle(r, rate).map(hex));
    expect(at(19200, '02 00 40 02 03 47')).toEqual(['02 00 40 FF FF 00 02 03 45']);
    expect(cabinet.boardBaud[0]).toBe(57600);
    expect(at(19200, '02 00 30 03 35')).toEqual([]);
    expect(at(57600, '02 00 30 03 35')).toHaveLength(1);
  });

  it('reads a lock channel without a door as open and empty, whatever is pulsed', () => {
    const cabinet = new SimulatedCabinet({ boards: 1, doorsWired: 8, busyAfterUnlockMs: 0 });
    expect(ask(cabinet, '02 00 30 03 35')).toEqual(['02 00 35 FF 00 00 00 03 39']);
    const inverted = new SimulatedCabinet({ boards: 1, doorsWired: 8, hookBitMeansClosed: false });
    // Normally-closed wiring: the shut doors read 0, the channels without a door 0 too.
    expect(ask(inverted, '02 00 30 03 35')).toEqual(['02 00 35 00 00 00 00 03 3A']);
  });

  it('loses the pulse and falls silent when the board’s power is cut at the pulse', () => {
    const cabinet = new SimulatedCabinet({ boards: 1, busyAfterUnlockMs: 0 });
    cabinet.cutPowerOnNextPulse(0, 10_000);
    ask(cabinet, '02 02 31 03 38');
    expect(ask(cabinet, '02 00 30 03 35')).toEqual([]);
    expect(cabinet.door(3).closed).toBe(true);
    cabinet.stop();
  });

  it('keeps a propped door open: shutting it does nothing until it is released', () => {
    const cabinet = new SimulatedCabinet({ boards: 1, propped: [4], itemsAt: [4] });
    expect(cabinet.door(4)).toEqual({ closed: false, itemPresent: true });
    cabinet.closeDoor(4);
    expect(cabinet.door(4).closed).toBe(false);
    cabinet.unprop(4);
    cabinet.closeDoor(4);
    expect(cabinet.door(4).closed).toBe(true);
  });
});
