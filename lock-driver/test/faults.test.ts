import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  LockBoard,
  SimulatedCabinet,
  defaultCabinet,
  servePty,
  serveTcp,
  serialTransport,
  tcpTransport,
} from '../src/index';
import { afterThisTest, until, wiredCabinet, type Wire } from './wiredCabinet';

// Every failure of the field, on the real serial code path (a pseudo-terminal) and over
// TCP. Reply timeouts are generous: under load a slow reply must not become a failure.

describe.each<Wire>(['pty', 'tcp'])('field failures over %s', (wire) => {
  it('opens a door whose status replies are lost after the pulse: one unlock frame, outcome opened', async () => {
    const { board, unlocksOnWire } = await wiredCabinet(
      wire,
      { boards: 1, dropAfterUnlock: 2 },
      { replyTimeoutMs: 250 },
    );
    const result = await board.open(9);
    expect(result).toMatchObject({ outcome: 'opened', pulses: 1 });
    expect(unlocksOnWire).toEqual([9]);
  });

  it('keeps its outcome through a noisy line (junk bytes, bad checksums)', async () => {
    const { board, unlocksOnWire: unlocks } = await wiredCabinet(
      wire,
      { boards: 1 },
      // The default (generous) reply timeout: a garbled reply costs one timeout, and a
      // short one let a loaded CI machine turn slow replies into a door called unknown.
      { line: { noise: true, noiseRate: 0.3 } },
    );
    for (const p of [1, 2, 3]) expect((await board.open(p)).outcome).toBe('opened');
    expect(unlocks).toEqual([1, 2, 3]);
  });

  it('reports an already-open door without pulsing it', async () => {
    const { board, cabinet, unlocksOnWire } = await wiredCabinet(wire, { boards: 1 });
    cabinet.openDoor(4);
    expect(await board.open(4)).toMatchObject({ outcome: 'already_open', pulses: 0 });
    expect(unlocksOnWire).toEqual([]);
  });

  it('reads the two live boards of three while the middle one is dead', async () => {
    const { board } = await wiredCabinet(
      wire,
      { boards: 3, deadBoards: [1] },
      { replyTimeoutMs: 300 },
    );
    const reading = await board.readDoors();
    expect(reading.boards.map((b) => b.reachable)).toEqual([true, false, true]);
    expect(reading.doors.filter((d) => d.known)).toHaveLength(32);
    expect((await board.open(40)).outcome).toBe('opened');
    expect(await board.open(20)).toMatchObject({ outcome: 'unknown', pulses: 0 });
  });

  it('refuses an unlock time out of range before sending and checks the echo', async () => {
    const { board, cabinet } = await wiredCabinet(wire, { boards: 1 });
    await expect(board.settings.setUnlockTime(0, 100_000)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(await board.settings.unlockTime(0)).toBe(550);
    cabinet.maxUnlockUnits = 80;
    await expect(board.settings.setUnlockTime(0, 1500)).rejects.toMatchObject({ code: 'MISMATCH' });
  });
});

describe('boots in any order', () => {
  it('waits for a serial port that appears after the kiosk started, and says so in its log', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'late-'));
    const devicePath = path.join(dir, 'ttyUSB0');
    const log: string[] = [];
    const board = await LockBoard.connect({
      transport: serialTransport({
        path: devicePath,
        waitForPort: true,
        initialBackoffMs: 50,
        maxBackoffMs: 200,
        log: (level, message) => log.push(`${level}: ${message}`),
      }),
      cabinet: defaultCabinet(1),
      replyTimeoutMs: 1000,
    });
    afterThisTest(() => board.close());
    await expect(board.open(1)).rejects.toMatchObject({ code: 'DISCONNECTED' });
    expect(log[0]).toMatch(/^warn: waiting for .*ttyUSB0.* does not exist/);
    const cabinet = new SimulatedCabinet({ boards: 1 });
    const sim = await servePty(cabinet, {}, devicePath);
    afterThisTest(
      () => sim.close(),
      () => cabinet.stop(),
    );
    expect(await until(async () => (await board.readDoors()).doors.length)).toBe(16);
    expect(log.at(-1)).toMatch(/^info: .*ttyUSB0.* connected after \d+ attempt/);
    expect((await board.open(1)).outcome).toBe('opened');
  });

  it('waits for a gateway that comes up late, and reconnects after it drops the connection', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const board = await LockBoard.connect({
      transport: tcpTransport({ host: '127.0.0.1', port, waitForPort: true, initialBackoffMs: 50 }),
      cabinet: defaultCabinet(1),
      replyTimeoutMs: 1000,
    });
    afterThisTest(() => board.close());
    await expect(board.readDoors()).rejects.toMatchObject({ code: 'DISCONNECTED' });
    const cabinet = new SimulatedCabinet({ boards: 1 });
    const gateway = await serveTcp(cabinet, port);
    afterThisTest(
      () => gateway.close(),
      () => cabinet.stop(),
    );
    expect(await until(async () => (await board.readDoors()).doors.length)).toBe(16);
    gateway.disconnectAll();
    expect(
      await until(async () => ((await board.open(2)).outcome === 'opened' ? true : undefined)),
    ).toBe(true);
  });

  it('keeps TCP keepalive on the gateway connection, so a silently dead gateway is noticed', async () => {
    const cabinet = new SimulatedCabinet({ boards: 1 });
    const gateway = await serveTcp(cabinet);
    const board = await LockBoard.connect({
      transport: tcpTransport({ host: '127.0.0.1', port: gateway.port }),
      cabinet: defaultCabinet(1),
      replyTimeoutMs: 1000,
    });
    afterThisTest(
      () => gateway.close(),
      () => cabinet.stop(),
      () => board.close(),
    );
    expect((await board.readDoors()).doors).toHaveLength(16);
    // The kernel's view of our socket to the gateway: a keepalive timer runs on it.
    const { stdout } = await promisify(execFile)('ss', ['-tno', 'state', 'established']);
    const toGateway = stdout
      .split('\n')
      .filter((l) => new RegExp(`127\\.0\\.0\\.1:${gateway.port}\\s`).test(l + ' '));
    expect(toGateway.some((l) => l.includes('timer:(keepalive'))).toBe(true);
  });
});
