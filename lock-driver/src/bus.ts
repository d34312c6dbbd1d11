import { LockDriverError } from './errors';
import { F5, isVersionQuery, type VendorFrame } from './protocol/vendor';
import { RESPONSE_LENGTH, STX, checksum, hex, type ResponseFrame } from './protocol/frame';
import { ResponseParser, type ReceivedFrame } from './protocol/parser';
import { BUS_TIMINGS, type BusTimings } from './timings';
import type { Transport } from './transport/transport';

/** Receives every frame on the wire, in both directions; a technician's monitor. */
export interface FrameLogger {
  frame?(direction: 'tx' | 'rx', bytes: Buffer, hexText: string, at: Date): void;
  /** Bytes on the line that were not a good frame: noise, or a frame with a bad checksum. */
  discarded?(bytes: Buffer, why: 'noise' | 'bad checksum', hexText: string, at: Date): void;
  debug?(message: string): void;
}

export type Expect =
  /** Unlock: the board never answers; done once the bytes have left. */
  | { kind: 'none' }
  | { kind: 'one'; match: (frame: ResponseFrame) => boolean }
  /** Broadcast: every board answers in turn; resolves at `count` frames or at the timeout. */
  | { kind: 'many'; count: number; match: (frame: ResponseFrame) => boolean };

export interface BusRequest {
  bytes: Buffer;
  expect: Expect;
  /** Unlocks go ahead of queued polls: a customer is waiting at that door. */
  urgent?: boolean;
  /** Time to the first byte of the reply (a broadcast's listening window); default the bus's. */
  timeoutMs?: number;
  /** Silence to keep after this exchange (the board writes settings to flash). */
  quietAfterMs?: number;
  /** Told the moment the bytes are handed to the line, after any wait in the queue. */
  onSent?: (at: number) => void;
}

type Awaiting =
  | Expect
  /** The vendor's version query: one F5 B6 frame from `board`. */
  | { kind: 'version'; board: number };

interface Queued {
  bytes: Buffer;
  expect: Awaiting;
  urgent?: boolean;
  timeoutMs?: number;
  quietAfterMs?: number;
  onSent?: (at: number) => void;
  resolve: (frames: ReceivedFrame[]) => void;
  reject: (error: Error) => void;
}

interface InFlight {
  request: Queued;
  frames: ReceivedFrame[];
  timer: NodeJS.Timeout;
  sentAt: number;
  /** When the reply's time is up whatever arrives (first byte late or trickling forever). */
  hardDeadline: number;
}

export interface BusOptions extends Partial<BusTimings> {
  logger?: FrameLogger;
}

/** What may be written to the line: an STX request, or the one F5 frame the driver knows. */
function assertSendable(bytes: Buffer): void {
  if (bytes[0] === F5) {
    if (isVersionQuery(bytes)) return;
    throw new LockDriverError(
      'INVALID_ARGUMENT',
      `refused to send ${hex(bytes)}: the only F5 frame the driver sends is the version query (F5 B6 ADDR 00 5F SUM); F5 B5 erases a board's application`,
    );
  }
  const framed =
    bytes.length >= 5 &&
    bytes.length <= 7 &&
    bytes[0] === STX &&
    bytes[bytes.length - 2] === 0x03 &&
    checksum(bytes, bytes.length - 1) === bytes[bytes.length - 1];
  if (!framed) throw new LockDriverError('INVALID_ARGUMENT', `refused to send ${hex(bytes)}`);
}

/**
 * The RS-485 bus as one conversation: one request in flight at a time (the boards share
 * the wire), urgent requests first, replies matched to their request, a missing reply
 * timed out, late or stray frames dropped. Timings: see timings.ts.
 */
export class Bus {
  private readonly urgent: Queued[] = [];
  private readonly normal: Queued[] = [];
  private current: InFlight | undefined;
  private readonly parser: ResponseParser;
  readonly timings: Readonly<BusTimings>;
  /** No request leaves before this time (performance.now()): a flash write. */
  private quietUntil = 0;
  /** The last exchange did not end cleanly: keep the guard silence before the next. */
  private dirtySince: number | undefined;
  private lastRxAt = -Infinity;
  private waitTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly options: BusOptions = {},
  ) {
    const given = Object.fromEntries(
      Object.entries(options).filter(([k, v]) => k !== 'logger' && v !== undefined),
    );
    this.timings = Object.freeze({ ...BUS_TIMINGS, ...given });
    this.parser = new ResponseParser((d) =>
      options.logger?.discarded?.(d.bytes, d.why, hex(d.bytes), new Date()),
    );
    transport.onData((chunk) => this.receive(chunk));
    transport.onConnection((connected) => {
      this.parser.reset();
      // Nothing waits for a reconnection: a queued unlock must fail now, never fire late.
      if (!connected)
        this.drain(
          new LockDriverError('DISCONNECTED', `${transport.description} was disconnected`),
        );
    });
  }

  request(request: BusRequest): Promise<ResponseFrame[]> {
    return this.enqueue(request) as Promise<ResponseFrame[]>;
  }

  /** The vendor's version query (F5 B6) of one board: its one reply frame. */
  async version(bytes: Buffer, board: number): Promise<VendorFrame> {
    const [frame] = await this.enqueue({ bytes, expect: { kind: 'version', board } });
    return frame as VendorFrame;
  }

  private enqueue(request: Omit<Queued, 'resolve' | 'reject'>): Promise<ReceivedFrame[]> {
    try {
      assertSendable(request.bytes);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (!this.transport.connected)
      return Promise.reject(
        new LockDriverError('DISCONNECTED', `${this.transport.description} is not connected`),
      );
    return new Promise((resolve, reject) => {
      (request.urgent ? this.urgent : this.normal).push({ ...request, resolve, reject });
      this.next();
    });
  }

  /** When the next request may leave: after a flash write, and after the guard. */
  private readyAt(): number {
    const guard =
      this.dirtySince === undefined
        ? 0
        : Math.max(this.dirtySince, this.lastRxAt) + this.timings.guardMs;
    return Math.max(this.quietUntil, guard);
  }

  private next(): void {
    if (this.current || this.waitTimer) return;
    if (this.urgent.length === 0 && this.normal.length === 0) return;
    const wait = this.readyAt() - performance.now();
    if (wait > 0) {
      this.waitTimer = setTimeout(() => {
        this.waitTimer = undefined;
        this.next();
      }, Math.ceil(wait));
      return;
    }
    const request = this.urgent.shift() ?? this.normal.shift();
    if (!request) return;
    if (this.dirtySince !== undefined) {
      // Whatever half-frame the guard left behind is not the answer to this request.
      this.parser.reset();
      this.dirtySince = undefined;
    }
    const sentAt = performance.now();
    const first = request.timeoutMs ?? this.timings.replyTimeoutMs;
    const frames = request.expect.kind === 'many' ? request.expect.count : 1;
    this.current = {
      request,
      frames: [],
      sentAt,
      timer: setTimeout(() => this.timedOut(), first),
      hardDeadline: sentAt + first + frames * RESPONSE_LENGTH * this.timings.guardMs,
    };
    this.options.logger?.frame?.('tx', request.bytes, hex(request.bytes), new Date());
    request.onSent?.(sentAt);
    this.transport.write(request.bytes).then(
      () => {
        if (request.expect.kind === 'none' && this.current?.request === request) this.finish([]);
      },
      (error: unknown) =>
        this.failCurrent(error instanceof Error ? error : new Error(String(error))),
    );
  }

  private matches(expect: Awaiting, frame: ReceivedFrame): boolean {
    switch (expect.kind) {
      case 'none':
        return false;
      case 'version':
        return frame.framing === 'f5' && frame.cmd === 0xb6 && frame.board === expect.board;
      case 'one':
      case 'many':
        return frame.framing === 'stx' && expect.match(frame);
    }
  }

  private receive(chunk: Buffer): void {
    this.lastRxAt = performance.now();
    const current = this.current;
    // Bytes while nothing is awaited are a late reply (or noise): guard before the next.
    if (!current || current.request.expect.kind === 'none') this.dirtySince ??= this.lastRxAt;
    for (const frame of this.parser.push(chunk)) {
      this.options.logger?.frame?.('rx', frame.raw, hex(frame.raw), new Date());
      const now = this.current;
      if (!now || !this.matches(now.request.expect, frame)) {
        this.options.logger?.debug?.(`dropped a frame nobody waits for: ${hex(frame.raw)}`);
        this.dirtySince ??= this.lastRxAt;
        continue;
      }
      now.frames.push(frame);
      const expect = now.request.expect;
      if (expect.kind !== 'many' || now.frames.length >= expect.count) this.finish(now.frames);
    }
  }

  private timedOut(settled = false): void {
    const current = this.current;
    if (!current) return;
    if (!settled) {
      // A timer behind a busy event loop fires late, in the same turn as bytes that came
      // in time and still wait to be read: decide once the loop has read them.
      setImmediate(() => {
        if (this.current === current) this.timedOut(true);
      });
      return;
    }
    const now = performance.now();
    // A reply on its way (bytes since the request, the last one within the guard) may
    // finish trickling in, up to the hard deadline.
    const talking = this.lastRxAt > current.sentAt && now - this.lastRxAt < this.timings.guardMs;
    const midFrame = current.request.expect.kind === 'many' || this.parser.pending > 0;
    if (talking && midFrame && now < current.hardDeadline) {
      const wait = Math.min(this.lastRxAt + this.timings.guardMs, current.hardDeadline) - now;
      current.timer = setTimeout(() => this.timedOut(), Math.max(1, Math.ceil(wait)));
      return;
    }
    this.dirtySince = now;
    const expect = current.request.expect;
    // A broadcast ends at its timeout with whatever boards answered.
    if (expect.kind === 'many') return this.finish(current.frames);
    const sent = current.request.bytes;
    const board = sent[0] === F5 ? sent[2]! : sent[1]! >> 4;
    const waited = current.request.timeoutMs ?? this.timings.replyTimeoutMs;
    this.failCurrent(
      new LockDriverError(
        'TIMEOUT',
        `board ${board} did not answer (check its power, its address switches and the A/B wiring)`,
        { detail: `sent ${hex(sent)}, no reply within ${waited} ms` },
      ),
    );
  }

  private finish(frames: ReceivedFrame[]): void {
    const current = this.current;
    if (!current) return;
    clearTimeout(current.timer);
    // Leftover bytes after the awaited frame are not part of any answer: guard.
    if (this.parser.pending > 0) this.dirtySince ??= performance.now();
    current.request.resolve(frames);
    this.release(current.request.quietAfterMs ?? 0);
  }

  private failCurrent(error: Error): void {
    const current = this.current;
    if (!current) return;
    clearTimeout(current.timer);
    current.request.reject(error);
    this.release(0);
  }

  private release(quietMs: number): void {
    this.current = undefined;
    if (quietMs > 0) this.quietUntil = performance.now() + quietMs;
    this.next();
  }

  /** Resolves once the bus has kept `ms` of silence after what is in flight now. */
  async quiet(ms: number): Promise<void> {
    this.quietUntil = Math.max(this.quietUntil, performance.now() + ms);
    await new Promise((resolve) =>
      setTimeout(resolve, Math.ceil(this.quietUntil - performance.now())),
    );
  }

  /** Fails everything queued and in flight (shutdown). */
  drain(error: Error): void {
    clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    // The queue first: failing the exchange in flight would start the next one.
    for (const queued of [...this.urgent.splice(0), ...this.normal.splice(0)]) queued.reject(error);
    this.failCurrent(error);
  }
}
