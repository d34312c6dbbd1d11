import { afterEach, describe, expect, it } from 'vitest';
import { CabinetSchema, defaultCabinet, type CabinetFile } from './cabinet/schema';
import { LockBoard, type LockBoardOptions } from './lockBoard';
import { Command, hex } from './protocol/frame';
import { mockBoard } from '../test/mockBoard';
import { checksum } from './protocol/frame';

/** A reply with byte `at` changed and its SUM made right again. */
function fixSum(reply: Buffer, at: number, value: number): Buffer {
  const changed = Buffer.from(reply);
  changed[at] = value;
  changed[8] = checksum(changed, 8);
  return changed;
}

const open: LockBoard[] = [];
afterEach(async () => {
  for (const board of open.splice(0)) await board.close();
});

// Reply timeouts are generous: what these tests assert is never how fast a reply comes.
async function connect(
  options: Parameters<typeof mockBoard>[0],
  extra: Partial<LockBoardOptions> & { cabinetFile?: CabinetFile } = {},
) {
  const mock = mockBoard(options);
  const { cabinetFile, ...rest } = extra;
  const board = await LockBoard.connect({
    transport: mock.transport,
    cabinet: cabinetFile
      ? CabinetSchema.parse(cabinetFile)
      : defaultCabinet(options.boards, options.hookBitMeansClosed),
    pollIntervalMs: 5,
    openTimeoutMs: 300,
    replyTimeoutMs: 1000,
    ...rest,
  });
  open.push(board);
  const unlocks = () => mock.written.filter((b) => b[2] === Command.unlock);
  return { ...mock, board, unlocks };
}

describe('LockBoard.open', () => {
  it('reads the door, pulses once, and reports it opened with its timings', async () => {
    const { board, cabinet, unlocks, written } = await connect({ boards: 1, openDelayMs: 20 });
    // When the board took the pulse and when the door swung open, on the driver's clock.
    // (Not "at least 20 ms": Node's timers keep whole milliseconds, so a 20 ms one may fire
    // after 19.99 ms as performance.now() counts them.)
    const at: Record<string, number> = {};
    cabinet.once('unlock', () => (at.pulse = performance.now()));
    cabinet.once('door', () => (at.open = performance.now()));
    const result = await board.open(3);
    expect(result).toMatchObject({ position: 3, outcome: 'opened', pulses: 1 });
    // Counted from the pulse, and never shorter than the door took to open.
    expect(result.seenOpenAfterMs).toBeGreaterThanOrEqual(at.open! - at.pulse!);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(result.seenOpenAfterMs!);
    expect(cabinet.door(3).closed).toBe(false);
    expect(unlocks().map((b) => b[1])).toEqual([0x02]);
    // A status read went out before the unlock.
    expect(written[0]![2]).toBe(Command.status);
  });

  it('times the opening from the pulse on the line, not from a wait behind a silent board', async () => {
    const { board, cabinet } = await connect({ boards: 2 }, { replyTimeoutMs: 300 });
    cabinet.setResponsive(1, false);
    const at: Record<string, number> = {};
    cabinet.once('unlock', () => (at.pulse = performance.now()));
    // Door 17 is on the silent board: its reads hold the bus 300 ms each, and the unlock
    // waits behind one of them.
    const stuck = board.readDoor(17).catch(() => undefined);
    const asked = performance.now();
    const result = await board.open(3);
    const answered = performance.now();
    expect(result).toMatchObject({ outcome: 'opened', pulses: 1 });
    expect(at.pulse! - asked).toBeGreaterThan(250);
    // Seen open at most as long after the pulse as the answer came, not 300 ms more.
    expect(result.seenOpenAfterMs).toBeLessThan(answered - at.pulse! + 50);
    await stuck;
  });

  it('leaves the board its turnaround: no poll reaches a board still busy with the pulse', async () => {
    const { board, cabinet } = await connect(
      { boards: 1, busyAfterUnlockMs: 15 },
      { turnaroundMs: 20 },
    );
    const missed: unknown[] = [];
    cabinet.on('missed', (r) => missed.push(r));
    expect((await board.open(1)).outcome).toBe('opened');
    expect(missed).toEqual([]);
  });

  it('keeps polling through replies lost after the pulse: one unlock, outcome opened', async () => {
    const { board, unlocks } = await connect(
      { boards: 1, dropAfterUnlock: 3 },
      { replyTimeoutMs: 100 },
    );
    const result = await board.open(7);
    expect(result).toMatchObject({ outcome: 'opened', pulses: 1 });
    expect(unlocks()).toHaveLength(1);
  });

  it('does not pulse a door that is already open', async () => {
    const { board, cabinet, unlocks } = await connect({ boards: 1 });
    cabinet.openDoor(5);
    const result = await board.open(5);
    expect(result).toMatchObject({ outcome: 'already_open', pulses: 0, seenOpenAfterMs: null });
    expect(unlocks()).toHaveLength(0);
  });

  it('reports a jammed door as did_not_open and never resends the unlock', async () => {
    const { board, cabinet, unlocks } = await connect({ boards: 1 });
    cabinet.jam(5);
    const result = await board.open(5);
    expect(result).toMatchObject({ outcome: 'did_not_open', pulses: 1, seenOpenAfterMs: null });
    expect(result.elapsedMs).toBeGreaterThanOrEqual(300);
    expect(unlocks()).toHaveLength(1);
  });

  it('answers unknown when the board falls silent after the pulse, without throwing', async () => {
    const { board, cabinet, unlocks } = await connect({ boards: 1 }, { replyTimeoutMs: 80 });
    cabinet.on('unlock', () => cabinet.setResponsive(0, false));
    const result = await board.open(2);
    expect(result).toMatchObject({ outcome: 'unknown', pulses: 1, seenOpenAfterMs: null });
    expect(unlocks()).toHaveLength(1);
  });

  it('answers unknown, never did_not_open, when the board loses power at the pulse and comes back shut', async () => {
    // A brown-out: the solenoid pulls the supply down, the board resets and loses the
    // pulse, stays silent for most of the window, then answers with the door still shut.
    const { board, cabinet, unlocks } = await connect(
      { boards: 1 },
      { replyTimeoutMs: 60, openTimeoutMs: 600 },
    );
    cabinet.cutPowerOnNextPulse(0, 450);
    const result = await board.open(2);
    expect(result).toMatchObject({ outcome: 'unknown', pulses: 1, seenOpenAfterMs: null });
    expect(cabinet.door(2).closed).toBe(true);
    expect(unlocks()).toHaveLength(1);
  });

  it('answers unknown after a brown-out while every door is being watched: a cabinet read waits for the unlock', async () => {
    // The kiosk reads the whole cabinet all the time (watchDoors). Its reads of a board
    // gone silent must not take the unlock's own polls' places on the bus, or the unlock
    // hears too few of its own reads go unanswered and calls the door did_not_open.
    const { board, cabinet, unlocks } = await connect(
      { boards: 1 },
      { replyTimeoutMs: 120, openTimeoutMs: 700 },
    );
    const watch = board.watchDoors({ intervalMs: 1 });
    // The unlock's reads after the pulse: the first at ≈20 ms (120 ms unanswered, 100 ms
    // of guard after), the second at ≈240 ms. A cabinet read in its place would push it to
    // ≈460 ms. Silent until 350 ms: the second falls in the silence with 110 ms to spare
    // for a loaded machine's late timers, the pushed one after it by as much.
    cabinet.cutPowerOnNextPulse(0, 350);
    const result = await board.open(2);
    await watch.stop();
    expect(result).toMatchObject({ outcome: 'unknown', pulses: 1, seenOpenAfterMs: null });
    expect(unlocks()).toHaveLength(1);
  });

  it('watches the doors for as long as it runs without leaving a listener per read on its signal', async () => {
    const { board } = await connect({ boards: 1 });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const abort = new AbortController();
    let reads = 0;
    const watch = board.watchDoors({
      intervalMs: 1,
      signal: abort.signal,
      onReading: () => reads++,
    });
    try {
      await expect.poll(() => reads).toBeGreaterThan(30);
      await new Promise((resolve) => setImmediate(resolve));
      // Node warns once more than 10 listeners wait on one signal: one per read did.
      expect(warnings.filter((w) => w.includes('MaxListenersExceeded'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      abort.abort();
      await watch.stop();
    }
  });

  it('answers did_not_open through one lost reply: the board was heard through the window', async () => {
    const { board, cabinet } = await connect(
      { boards: 1, dropAfterUnlock: 1 },
      { replyTimeoutMs: 60, openTimeoutMs: 600 },
    );
    cabinet.jam(3);
    expect(await board.open(3)).toMatchObject({ outcome: 'did_not_open', pulses: 1 });
  });

  it('answers unknown without a pulse when the board is silent before it', async () => {
    const { board, cabinet, unlocks } = await connect({ boards: 1 }, { replyTimeoutMs: 80 });
    cabinet.setResponsive(0, false);
    expect(await board.open(2)).toMatchObject({ outcome: 'unknown', pulses: 0 });
    expect(unlocks()).toHaveLength(0);
  });

  it('joins a second call for a door already being opened instead of pulsing again', async () => {
    const { board, unlocks } = await connect({ boards: 1 });
    const [a, b] = await Promise.all([board.open(4), board.open(4)]);
    expect(a).toBe(b);
    expect(unlocks()).toHaveLength(1);
  });

  it('refuses a position outside the cabinet before sending anything', async () => {
    const { board, written } = await connect({ boards: 1 });
    await expect(board.open(17)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(board.open(0)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(written).toHaveLength(0);
  });

  it('fails at once while disconnected and never fires the unlock later', async () => {
    const { board, unlocks, transport } = await connect({ boards: 1 });
    await transport.close();
    await expect(board.open(1)).rejects.toMatchObject({ code: 'DISCONNECTED' });
    expect(unlocks()).toHaveLength(0);
  });
});

describe('LockBoard reads and watches', () => {
  it('tells closed with the item, closed empty, left open and aborted apart', async () => {
    const { board, cabinet } = await connect({ boards: 1, itemsAt: [1, 2] });
    const watch = (p: number, extra = {}) =>
      board.watchClosed(p, { leftOpenAfterMs: 1000, pollIntervalMs: 5, ...extra });
    cabinet.closeAfterOpen(1, 30, true);
    await board.open(1);
    expect((await watch(1)).outcome).toBe('closed_with_item');
    cabinet.closeAfterOpen(2, 30, false);
    await board.open(2);
    expect((await watch(2)).outcome).toBe('closed_empty');
    await board.open(3);
    let warned = 0;
    const left = await watch(3, {
      leftOpenAfterMs: 50,
      giveUpAfterMs: 120,
      onLeftOpen: () => warned++,
    });
    expect(left.outcome).toBe('left_open');
    expect(left.elapsedMs).toBeGreaterThanOrEqual(120);
    expect(warned).toBe(1);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    expect((await watch(3, { signal: abort.signal })).outcome).toBe('aborted');
  });

  it('counts a door left open and empty as done when asked to (parcel taken, door not shut)', async () => {
    const { board, cabinet } = await connect({ boards: 1, itemsAt: [6] });
    await board.open(6);
    const watched = board.watchClosed(6, {
      leftOpenAfterMs: 50,
      doneWhenEmpty: true,
      pollIntervalMs: 5,
    });
    setTimeout(() => cabinet.setItem(6, false), 100);
    expect((await watched).outcome).toBe('closed_empty');
  });

  it('keeps watching through a board that falls silent for a while', async () => {
    const { board, cabinet } = await connect({ boards: 1 }, { replyTimeoutMs: 50 });
    await board.open(8);
    cabinet.setResponsive(0, false);
    const watched = board.watchClosed(8, { leftOpenAfterMs: 5000, pollIntervalMs: 5 });
    setTimeout(() => {
      cabinet.setResponsive(0, true);
      cabinet.closeDoor(8, true);
    }, 300);
    expect((await watched).outcome).toBe('closed_with_item');
  });

  it('reads every board on its own: a silent board marks only its own doors unknown', async () => {
    const { board, cabinet } = await connect({ boards: 3 }, { replyTimeoutMs: 80 });
    cabinet.setResponsive(1, false);
    const reading = await board.readDoors();
    expect(reading.boards).toEqual([
      { board: 0, reachable: true },
      { board: 1, reachable: false },
      { board: 2, reachable: true },
    ]);
    expect(reading.doors).toHaveLength(48);
    expect(reading.doors.filter((d) => !d.known).map((d) => d.position)).toEqual(
      Array.from({ length: 16 }, (_, i) => i + 17),
    );
    expect(reading.doors[0]).toEqual({
      position: 1,
      board: 0,
      lock: 0,
      known: true,
      closed: true,
      itemPresent: false,
    });
  });

  it('maps positions across boards and through the cabinet file overrides', async () => {
    // A cabinet whose first and last doors were wired to each other's locks.
    const swapped = { 1: { board: 2, lock: 15 }, 48: { board: 0, lock: 0 } };
    const { board, unlocks } = await connect(
      { boards: 3 },
      { cabinetFile: { boards: [0, 1, 2], positionOverrides: swapped } },
    );
    await board.open(20); // board 1, lock index 3
    await board.open(1); // rewired to board 2, lock 16
    expect(unlocks().map((b) => b[1])).toEqual([0x13, 0x2f]);
    const { doors } = await board.readDoors();
    expect(doors.map((d) => d.position)).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
    expect(doors.find((d) => d.position === 48)).toMatchObject({ closed: true });
    expect(doors.find((d) => d.position === 1)).toMatchObject({ closed: false });
    expect(doors.find((d) => d.position === 20)).toMatchObject({ closed: false });
  });

  it('reads normally-closed wiring when the cabinet file gives its polarity', async () => {
    const { board, cabinet } = await connect(
      { boards: 1, hookBitMeansClosed: false, itemsAt: [4] },
      { cabinetFile: { boards: [0], hookBitMeansClosed: false } },
    );
    expect(await board.readDoor(4)).toMatchObject({ known: true, closed: true, itemPresent: true });
    expect((await board.open(4)).outcome).toBe('opened');
    expect(cabinet.door(4).closed).toBe(false);
  });

  it('cycles every door, naming the ones that did not open, stood open or were left open', async () => {
    const { board, cabinet } = await connect({ boards: 1, autoCloseMs: 250 });
    cabinet.jam(4);
    cabinet.openDoor(6);
    cabinet.closeAfterOpen(9, 10_000, false);
    const results = await board.cycle(600);
    expect(results).toHaveLength(16);
    expect(results.filter((r) => !r.ok).map((r) => [r.position, r.opened, r.closed])).toEqual([
      [4, 'did_not_open', null],
      [6, 'already_open', null],
      [9, 'opened', 'left_open'],
    ]);
    expect(results.find((r) => r.position === 1)).toEqual({
      position: 1,
      opened: 'opened',
      closed: 'closed_empty',
      ok: true,
    });
  });
});

describe('board settings', () => {
  it('reads and sets the unlock pulse time, refusing 0-60 s overruns before sending', async () => {
    const { board, written } = await connect({ boards: 2 });
    expect(await board.settings.unlockTime(1)).toBe(550);
    expect(await board.settings.setUnlockTime(1, 1200)).toBe(1200);
    expect(await board.settings.unlockTime(1)).toBe(1200);
    const sent = written.length;
    for (const ms of [100_000, 60_010, -10, 5, 12.5])
      await expect(board.settings.setUnlockTime(1, ms)).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
    expect(written).toHaveLength(sent);
    expect(await board.settings.setUnlockTime(1, 60_000)).toBe(60_000);
  });

  it('calls a board that echoes another unlock time than asked a mismatch', async () => {
    const { board, cabinet } = await connect({ boards: 1 });
    cabinet.maxUnlockUnits = 80; // a board that keeps at most 800 ms
    await expect(board.settings.setUnlockTime(0, 1500)).rejects.toMatchObject({
      code: 'MISMATCH',
      message: expect.stringContaining('800 ms, not the 1500 ms'),
    });
  });

  it('refuses an unlock time whose frame a board would read as a query (8280 ms on board 0)', async () => {
    const { board, written } = await connect({ boards: 1 });
    await expect(board.settings.setUnlockTime(0, 8280)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('use 8270 or 8290 ms'),
    });
    expect(written).toHaveLength(0);
    expect(await board.settings.setUnlockTime(0, 8290)).toBe(8290);
  });

  it('reads the software and hardware version with the vendor’s F5 B6 query', async () => {
    const { board, cabinet, written } = await connect({ boards: 2 });
    cabinet.setVersion(1, 4, 1);
    expect(await board.settings.firmware(0)).toEqual({
      board: 0,
      software: 1,
      hardware: 1,
      raw: 'F5 B6 00 02 5F 0E 01 01',
    });
    expect(await board.settings.firmware(1)).toMatchObject({ board: 1, software: 4, hardware: 1 });
    expect(written.map((w) => hex(w))).toEqual(['F5 B6 00 00 5F 0A', 'F5 B6 01 00 5F 0B']);
  });

  it('sets the baud with 0x40, confirmed from D4 (the code), not D1 (hook bits); then the board answers only at the new rate', async () => {
    const mock = mockBoard({ boards: 1 });
    const board = await LockBoard.connect({
      transport: mock.transport,
      cabinet: defaultCabinet(1),
      replyTimeoutMs: 100,
      flashWriteMs: 150,
    });
    open.push(board);
    // Every door shut: D1 D2 = FF FF, nothing like the code 2 of 57600.
    const asked = performance.now();
    expect(await board.settings.setBaud(0, 57600)).toBe(57600);
    // It waited out the flash write before resolving.
    expect(performance.now() - asked).toBeGreaterThanOrEqual(140);
    expect(hex(mock.written.at(-1)!)).toBe('02 00 40 02 03 47');
    expect(mock.cabinet.boardBaud[0]).toBe(57600);
    expect((await board.readDoors()).boards).toEqual([{ board: 0, reachable: false }]);
    await board.close();
    open.splice(open.indexOf(board), 1);
    const faster = await LockBoard.connect({
      transport: mock.transportAt(57600),
      cabinet: defaultCabinet(1),
      replyTimeoutMs: 100,
    });
    open.push(faster);
    expect((await faster.readDoors()).boards).toEqual([{ board: 0, reachable: true }]);
  });

  it('calls a 0x40 echo naming another code a mismatch', async () => {
    const { board, cabinet } = await connect({ boards: 1 }, { flashWriteMs: 10 });
    cabinet.switchBaud = () => {}; // a board that keeps its rate…
    const handle = cabinet.handle.bind(cabinet);
    // …and echoes its old code, 1 (19200), in D4.
    cabinet.handle = (request, rate) =>
      handle(request, rate).map((r) => (r[2] === 0x40 ? fixSum(r, 6, 0x01) : r));
    await expect(board.settings.setBaud(0, 115200)).rejects.toMatchObject({
      code: 'MISMATCH',
      message: 'board 0 did not confirm 115200 baud: it answered code 1 (19200 baud)',
    });
  });

  it('sets and clears the delayed unlock (0x39, 0-250 s), refusing other values before sending', async () => {
    const { board, cabinet, written } = await connect({ boards: 2 }, { flashWriteMs: 10 });
    expect(await board.settings.setUnlockDelay(1, 3)).toBe(3);
    expect(cabinet.unlockDelayS).toEqual([0, 3]);
    expect(hex(written.at(-1)!)).toBe('02 10 39 03 03 51');
    expect(await board.settings.setUnlockDelay(1, 0)).toBe(0);
    expect(cabinet.unlockDelayS).toEqual([0, 0]);
    const sent = written.length;
    for (const s of [251, -1, 1.5])
      await expect(board.settings.setUnlockDelay(0, s)).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
    expect(written).toHaveLength(sent);
  });

  it('asks a query again when its reply is lost, up to three times; a setting is sent once', async () => {
    const { board, cabinet, written } = await connect({ boards: 1 }, { replyTimeoutMs: 60 });
    const sentOf = (cmd: number) => written.filter((w) => w[0] === cmd || w[2] === cmd).length;
    cabinet.loseReplies(2);
    expect(await board.settings.firmware(0)).toMatchObject({ software: 1, hardware: 1 });
    expect(sentOf(0xf5)).toBe(3);
    cabinet.loseReplies(2);
    expect(await board.settings.unlockTime(0)).toBe(550);
    cabinet.loseReplies(3);
    await expect(board.settings.firmware(0)).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(sentOf(0xf5)).toBe(6);
    cabinet.loseReplies(1);
    const setsBefore = written.length;
    await expect(board.settings.setUnlockTime(0, 1200)).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(written.length - setsBefore).toBe(1);
  });
});
