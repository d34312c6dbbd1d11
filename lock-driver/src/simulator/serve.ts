import { SerialPort } from 'serialport';
import { spawn, type ChildProcess } from 'node:child_process';
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

/** Connects a cabinet to one byte stream: requests in, replies out, one at a time. */
function attach(cabinet: SimulatedCabinet, write: (bytes: Buffer) => void, wire: WireOptions) {
  const parser = new RequestParser(wire.interByteTimeoutMs ?? 20, (d) =>
    cabinet.emit('discarded', d),
  );
  const rate = wire.noiseRate ?? 0.2;
  let busyUntil = 0;
  return (chunk: Buffer) => {
    for (const request of parser.push(chunk)) {
      const replies = cabinet.handle(request).map((r) => (wire.noise ? noisy(r, rate) : r));
      const bytes = request.raw.length + replies.reduce((n, r) => n + r.length, 0);
      const lineMs = wire.baudRate ? (bytes * 10 * 1000) / wire.baudRate : 0;
      // Replies leave in order, each after the line time of what precedes it.
      const at = Math.max(Date.now(), busyUntil) + lineMs;
      busyUntil = at;
      const send = () => replies.forEach(write);
      if (lineMs > 0) setTimeout(send, at - Date.now());
      else send();
    }
  };
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
      attach(cabinet, (b) => socket.write(b), wire),
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
    current.on(
      'data',
      attach(cabinet, (b) => current.write(b), wire),
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
