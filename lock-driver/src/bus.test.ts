import { afterEach, describe, expect, it } from 'vitest';
import { Bus } from './bus';
import { BUS_TIMINGS } from './timings';
import { LockDriverError } from './errors';
import { Reply, address, hex } from './protocol/frame';
import { requests } from './protocol/requests';
import { mockBoard } from '../test/mockBoard';
import type { Transport } from './transport/transport';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function openBus(
  options: Parameters<typeof mockBoard>[0],
  replyTimeoutMs: number | 'shared' = 100,
) {
  const board = mockBoard(options);
  await board.transport.open();
  closers.push(() => board.transport.close());
  const frames: string[] = [];
  const bus = new Bus(board.transport, {
    ...(replyTimeoutMs === 'shared' ? {} : { replyTimeoutMs }),
    logger: { frame: (dir, _b, text) => frames.push(`${dir} ${text}`) },
  });
  return { ...board, bus, frames };
}

const statusOf = (board: number) => ({
  bytes: requests.status(board),
  expect: {
    kind: 'one' as const,
    match: (f: { addr: number; cmd: number }) =>
      f.addr === address(board) && f.cmd === Reply.status,
  },
});

describe('Bus over the mock serial binding', () => {
  it('matches a reply delivered in pieces to its request and logs both frames in hex', async () => {
    // The vendor's example board: lock 1 locked with an item in it, the others open.
    const { bus, frames, cabinet } = await openBus({ boards: 2, itemsAt: [1] });
    for (let p = 2; p <= 16; p++) cabinet.openDoor(p);
    const [frame] = await bus.request(statusOf(0));
    expect(hex(frame!.raw)).toBe('02 00 35 01 00 01 00 03 3C');
    expect(frames).toEqual(['tx 02 00 30 03 35', 'rx 02 00 35 01 00 01 00 03 3C']);
  });

  it('keeps one request in flight: the next leaves only after the reply', async () => {
    const { bus, written, frames } = await openBus({ boards: 3 });
    await Promise.all([
      bus.request(statusOf(0)),
      bus.request(statusOf(1)),
      bus.request(statusOf(2)),
    ]);
    expect(written.map((b) => b[1])).toEqual([0x00, 0x10, 0x20]);
    expect(frames.map((f) => f.slice(0, 2))).toEqual(['tx', 'rx', 'tx', 'rx', 'tx', 'rx']);
  });

  it('sends an unlock ahead of status polls already queued', async () => {
    // About queue order only: the board answers even right after the pulse.
    const { bus, written } = await openBus({ boards: 1, busyAfterUnlockMs: 0 });
    const polls = [bus.request(statusOf(0)), bus.request(statusOf(0)), bus.request(statusOf(0))];
    const unlock = bus.request({
      bytes: requests.unlock(0, 4),
      expect: { kind: 'none' },
      urgent: true,
    });
    await Promise.all([...polls, unlock]);
    // The first poll was already on the wire; the unlock overtakes the other two.
    expect(written.map((b) => b[2])).toEqual([0x30, 0x31, 0x30, 0x30]);
  });

  it('times out a reply that never comes, then carries on with the next request', async () => {
    const { bus, cabinet } = await openBus({ boards: 2 }, 60);
    cabinet.setResponsive(1, false);
    const missing = bus.request(statusOf(1));
    const next = bus.request(statusOf(0));
    await expect(missing).rejects.toMatchObject({ code: 'TIMEOUT' });
    await expect(missing).rejects.toBeInstanceOf(LockDriverError);
    expect((await next)[0]!.board).toBe(0);
  });

  it('collects every board’s answer to a broadcast', async () => {
    const { bus } = await openBus({ boards: 3 });
    const frames = await bus.request({
      bytes: requests.statusAll(),
      expect: { kind: 'many', count: 3, match: (f) => f.cmd === Reply.statusAll },
    });
    expect(frames.map((f) => f.board)).toEqual([0, 1, 2]);
  });

  it('keeps the bus quiet after a flash write before the next request leaves', async () => {
    const { bus } = await openBus({ boards: 1 });
    await bus.request({
      bytes: requests.setUnlockTime(0, 1000),
      expect: { kind: 'one', match: (f) => f.cmd === Reply.unlockTime },
      quietAfterMs: 150,
    });
    const started = Date.now();
    await bus.request(statusOf(0));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });
});

describe('bus timings (one set, for the kiosk and lockctl alike)', () => {
  it('reads a reply whose bytes come 30 ms apart (a gateway that holds bytes), with the shared timings', async () => {
    const { bus, cabinet } = await openBus({ boards: 1, replyByteGapMs: 30 }, 'shared');
    expect(bus.timings).toEqual(BUS_TIMINGS);
    const [frame] = await bus.request(statusOf(0));
    expect(hex(frame!.raw)).toBe('02 00 35 FF FF 00 00 03 38');
    // Slower still: 60 ms between bytes, a 9-byte reply over half a second.
    cabinet.replyByteGapMs = 60;
    expect((await bus.request(statusOf(0)))[0]!.board).toBe(0);
  });

  it('never takes a reply that came after its timeout for the answer to the next request', async () => {
    const { bus, cabinet, frames } = await openBus({ boards: 1 }, 150);
    // The first reply is held past its timeout; it says door 1 is shut.
    cabinet.delayNextReply(190);
    await expect(bus.request(statusOf(0))).rejects.toMatchObject({ code: 'TIMEOUT' });
    // Meanwhile door 1 opens: the next answer must say so, not repeat the late one.
    cabinet.openDoor(1);
    const [frame] = await bus.request(statusOf(0));
    expect(frame!.data[0] & 1).toBe(0);
    // The late reply was heard, and dropped.
    expect(frames.filter((f) => f.startsWith('rx'))).toEqual([
      'rx 02 00 35 FF FF 00 00 03 38',
      'rx 02 00 35 FE FF 00 00 03 37',
    ]);
  });

  it('waits out a reply trickling in past the first-byte timeout, then lets the next request go', async () => {
    const { bus, cabinet } = await openBus({ boards: 2 }, 100);
    cabinet.replyByteGapMs = 40; // 320 ms for a whole reply: far past the 100 ms to its first byte
    const [a, b] = await Promise.all([bus.request(statusOf(0)), bus.request(statusOf(1))]);
    expect([a[0]!.board, b[0]!.board]).toEqual([0, 1]);
  });
});

describe('Bus behind a busy event loop', () => {
  it('takes a reply that came in time although its timeout fired first, late', async () => {
    // A transport whose board answers 60 ms after the request, while the process is busy
    // for 150 ms: when the loop runs again the 50 ms timeout and the answer are both due,
    // the timeout first. The answer came in time; it is the answer.
    let listener: (chunk: Buffer) => void = () => {};
    const transport: Transport = {
      description: 'busy loop',
      connected: true,
      open: async () => {},
      close: async () => {},
      onConnection: () => {},
      onData: (l) => void (listener = l),
      write: () => {
        setTimeout(() => listener(Buffer.from('02003501000100033C', 'hex')), 60);
        return Promise.resolve();
      },
    };
    const bus = new Bus(transport, { replyTimeoutMs: 50 });
    const reply = bus.request(statusOf(0));
    const until = performance.now() + 150;
    while (performance.now() < until);
    const [frame] = await reply;
    expect(hex(frame!.raw)).toBe('02 00 35 01 00 01 00 03 3C');
  });
});
