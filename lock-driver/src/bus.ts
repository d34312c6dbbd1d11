import { LockDriverError } from './errors';
import { hex, type ResponseFrame } from './protocol/frame';
import { ResponseParser } from './protocol/parser';
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
  timeoutMs?: number;
  /** Silence to keep after this exchange (the board writes settings to flash). */
  quietAfterMs?: number;
  /** Told the moment the bytes are handed to the line, after any wait in the queue. */
  onSent?: (at: number) => void;
}

interface Queued extends BusRequest {
  resolve: (frames: ResponseFrame[]) => void;
  reject: (error: Error) => void;
}

interface InFlight {
  request: Queued;
  frames: ResponseFrame[];
  timer: NodeJS.Timeout;
}

export interface BusOptions {
  /** How long to wait for a reply; a healthy board answers in well under 50 ms. */
  replyTimeoutMs?: number;
  logger?: FrameLogger;
}

/**
 * The RS-485 bus as one conversation: one request in flight at a time (the boards share
 * the wire), urgent requests first, replies matched to their request, a missing reply
 * timed out, late or stray frames dropped.
 */
export class Bus {
  private readonly urgent: Queued[] = [];
  private readonly normal: Queued[] = [];
  private current: InFlight | undefined;
  private readonly parser: ResponseParser;
  private readonly replyTimeoutMs: number;
  /** No request leaves before this time (ms since epoch). */
  private quietUntil = 0;
  private quietTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly options: BusOptions = {},
  ) {
    this.replyTimeoutMs = options.replyTimeoutMs ?? 200;
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
    if (!this.transport.connected)
      return Promise.reject(
        new LockDriverError('DISCONNECTED', `${this.transport.description} is not connected`),
      );
    return new Promise((resolve, reject) => {
      (request.urgent ? this.urgent : this.normal).push({ ...request, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.current || this.quietTimer) return;
    const wait = this.quietUntil - Date.now();
    if (wait > 0) {
      this.quietTimer = setTimeout(() => {
        this.quietTimer = undefined;
        this.next();
      }, wait);
      return;
    }
    const request = this.urgent.shift() ?? this.normal.shift();
    if (!request) return;
    const timeoutMs = request.timeoutMs ?? this.replyTimeoutMs;
    const timer = setTimeout(() => this.timedOut(), timeoutMs);
    this.current = { request, frames: [], timer };
    this.options.logger?.frame?.('tx', request.bytes, hex(request.bytes), new Date());
    request.onSent?.(performance.now());
    this.transport.write(request.bytes).then(
      () => {
        if (request.expect.kind === 'none' && this.current?.request === request) this.finish([]);
      },
      (error: unknown) =>
        this.failCurrent(error instanceof Error ? error : new Error(String(error))),
    );
  }

  private receive(chunk: Buffer): void {
    for (const frame of this.parser.push(chunk)) {
      this.options.logger?.frame?.('rx', frame.raw, hex(frame.raw), new Date());
      const current = this.current;
      const expect = current?.request.expect;
      if (!current || !expect || expect.kind === 'none' || !expect.match(frame)) {
        this.options.logger?.debug?.(`dropped a frame nobody waits for: ${hex(frame.raw)}`);
        continue;
      }
      current.frames.push(frame);
      if (expect.kind === 'one' || current.frames.length >= expect.count)
        this.finish(current.frames);
    }
  }

  private timedOut(): void {
    const current = this.current;
    if (!current) return;
    const expect = current.request.expect;
    // A broadcast ends at its timeout with whatever boards answered.
    if (expect.kind === 'many') return this.finish(current.frames);
    const sent = current.request.bytes;
    const waited = current.request.timeoutMs ?? this.replyTimeoutMs;
    this.failCurrent(
      new LockDriverError(
        'TIMEOUT',
        `board ${sent[1]! >> 4} did not answer (check its power, its address switches and the A/B wiring)`,
        { detail: `sent ${hex(sent)}, no reply within ${waited} ms` },
      ),
    );
  }

  private finish(frames: ResponseFrame[]): void {
    const current = this.current;
    if (!current) return;
    clearTimeout(current.timer);
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
    if (quietMs > 0) this.quietUntil = Date.now() + quietMs;
    this.next();
  }

  /** Fails everything queued and in flight (shutdown). */
  drain(error: Error): void {
    this.failCurrent(error);
    for (const queued of [...this.urgent.splice(0), ...this.normal.splice(0)]) queued.reject(error);
  }
}
