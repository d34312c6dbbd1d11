import { SerialPort } from 'serialport';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SimulatedCabinet } from './cabinet';
import { RequestParser } from './requestParser';

export interface WireOptions {
  /**
   * Emulate the RS-485 line's speed: a request and its reply take their bytes x 10 bits
   * / baud to cross, as on a real bus. Unset: instant (a pseudo-terminal has no speed).
   */
  baudRate?: number;
  /** A request whose bytes pause longer than this is thrown away, as a board does. */
  interByteTimeoutMs?: number;
  /**
   * Fault: a noisy line. Junk bytes before some replies, now and then a reply with a
   * bad checksum.
   */
  noise?: boolean;
  /** Chance (0-1) of each noise event; default 0.2. */
  noiseRate?: number;
  /**
   * Pseudo-terminal only: read the rate the driver set on its end (termios, through
   * `stty`) and let only boards set to that rate answer, as on a real line. Unset, every
   * board hears every request. Over TCP the gateway's rate is `baudRate` (default 19200).
   */
  honourDriverBaud?: boolean;
}

const junk = () =>
  Buffer.from(
    Array.from(
      { length: 1 + Math.floor(Math.random() * 3) },
      () => 0x80 + Math.floor(Math.random() * 0x7f),
    ),
  );

/** A reply as noise leaves it: junk in front, or its checksum broken. */
function noisy(reply: Buffer, rate: number): Buffer {
  if (Math.random() < rate) return Buffer.concat([junk(), reply]);
  if (Math.random() < rate / 2) {
    const broken = Buffer.from(reply);
    broken[broken.length - 1] = (broken[broken.length - 1]! + 1) & 0xff;
    return broken;
  }
  return reply;
}

/**
 * Connects a cabinet to one byte stream: requests in, replies out, one at a time and in
 * order. `lineBaud` tells the rate requests were sent at (undefined: every board hears).
 */
function attach(
  cabinet: SimulatedCabinet,
  write: (bytes: Buffer) => void,
  wire: WireOptions,
  lineBaud: () => Promise<number | undefined> | number | undefined,
) {
  const parser = new RequestParser(wire.interByteTimeoutMs ?? 20, (d) =>
    cabinet.emit('discarded', d),
  );
  const rate = wire.noiseRate ?? 0.2;
  let chain = Promise.resolve();
  return (chunk: Buffer) => {
    for (const request of parser.push(chunk)) {
      chain = chain
        .then(async () => {
          const replies = cabinet
            .handle(request, await lineBaud())
            .map((r) => (wire.noise ? noisy(r, rate) : r));
          const { delayMs, byteGapMs } = cabinet.delivery();
          const bytes = request.raw.length + replies.reduce((n, r) => n + r.length, 0);
          const lineMs = wire.baudRate ? (bytes * 10 * 1000) / wire.baudRate : 0;
          if (replies.length === 0) return;
          if (lineMs + delayMs > 0) await sleep(lineMs + delayMs);
          if (byteGapMs <= 0) return replies.forEach(write);
          // A gateway that holds bytes: each one on its own, a gap apart.
          const all = Buffer.concat(replies);
          for (let i = 0; i < all.length; i++) {
            if (i > 0) await sleep(byteGapMs);
            write(all.subarray(i, i + 1));
          }
        })
        .catch(() => {});
    }
  };
}

/**
 * The rate the driver set on its end of a pseudo-terminal, read afresh for each request
 * (a few ms): a driver may have reopened the port at another rate since the last one.
 */
function driverBaudOf(driverEnd: string) {
  return () =>
    new Promise<number | undefined>((resolve) =>
      execFile('stty', ['-F', driverEnd, 'speed'], (error, stdout) =>
        resolve(error ? undefined : Number(stdout.trim())),
      ),
    );
}

export interface TcpSimulator {
  port: number;
  /** Drops every connection, as a gateway reboot would. */
  disconnectAll(): void;
  close(): Promise<void>;
}

/** The gateway form: the bus behind a TCP port. */
export async function serveTcp(
  cabinet: SimulatedCabinet,
  port = 0,
  wire: WireOptions = {},
): Promise<TcpSimulator> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on(
      'data',
      attach(
        cabinet,
        (b) => socket.write(b),
        wire,
        () => wire.baudRate ?? 19200,
      ),
    );
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    disconnectAll: () => sockets.forEach((s) => s.destroy()),
    close: () =>
      new Promise((resolve) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
}

export interface PtySimulator {
  /** The device path for the driver, like /dev/ttyUSB0 on a real kiosk. */
  path: string;
  /** Pulls the "USB adapter": the driver's port goes away. */
  unplug(): Promise<void>;
  /** Plugs it back in at the same path. */
  replug(): Promise<void>;
  close(): Promise<void>;
}

const waitFor = async (test: () => boolean, ms = 5000) => {
  const until = Date.now() + ms;
  while (!test()) {
    if (Date.now() > until) throw new Error('socat did not create the pseudo-terminals');
    await new Promise((r) => setTimeout(r, 20));
  }
};

/**
 * The serial form: a pseudo-terminal pair made by socat, the cabinet on one end, the
 * driver's real serial code path on the other (`path`).
 */
export async function servePty(
  cabinet: SimulatedCabinet,
  wire: WireOptions = {},
  driverPath?: string,
): Promise<PtySimulator> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cu16-'));
  const boardEnd = path.join(dir, 'board');
  const driverEnd = driverPath ?? path.join(dir, 'ttyCU16');
  let socat: ChildProcess | undefined;
  let port: SerialPort | undefined;

  const plug = async () => {
    socat = spawn(
      'socat',
      [`pty,raw,echo=0,link=${boardEnd}`, `pty,raw,echo=0,link=${driverEnd}`],
      { stdio: 'ignore' },
    );
    socat.on('error', () => {});
    // socat outlives a process that dies without cleaning up: take it along on exit.
    process.once('exit', killSocat);
    await waitFor(() => existsSync(boardEnd) && existsSync(driverEnd));
    port = new SerialPort({ path: boardEnd, baudRate: wire.baudRate ?? 19200, autoOpen: false });
    await new Promise<void>((resolve, reject) => port!.open((e) => (e ? reject(e) : resolve())));
    const current = port;
    const lineBaud = wire.honourDriverBaud ? driverBaudOf(driverEnd) : () => undefined;
    current.on(
      'data',
      attach(cabinet, (b) => current.isOpen && current.write(b), wire, lineBaud),
    );
    current.on('error', () => {});
  };
  const killSocat = () => socat?.kill();
  const unplug = async () => {
    process.removeListener('exit', killSocat);
    const [p, s] = [port, socat];
    port = undefined;
    socat = undefined;
    if (p?.isOpen) await new Promise<void>((r) => p.close(() => r()));
    if (s && s.exitCode === null) {
      await new Promise<void>((r) => {
        s.once('exit', () => r());
        s.kill('SIGTERM');
      });
    }
  };
  await plug();
  return { path: driverEnd, unplug, replug: plug, close: unplug };
}
