import { onTestFinished } from 'vitest';
import {
  LockBoard,
  SimulatedCabinet,
  defaultCabinet,
  servePty,
  serveTcp,
  serialTransport,
  tcpTransport,
  type Cabinet,
  type CabinetOptions,
  type PtySimulator,
  type TcpSimulator,
  type Transport,
  type WireOptions,
} from '../src/index';

/**
 * A simulated cabinet behind a real wire — a pseudo-terminal pair (the serial code path)
 * or a TCP gateway — with a driver connected to it, for tests that exercise the field's
 * failures end to end. Everything it starts is stopped after each test.
 */
export type Wire = 'pty' | 'tcp';

const cleanups: (() => Promise<void> | void)[] = [];

/**
 * Runs `cleanup` after the current test, before the ones registered earlier. The hook is
 * the test's own (`onTestFinished`), not an `afterEach` made when this module loads: a
 * worker loads it once for all its files (vitest.config.ts, `isolate: false`), and such a
 * hook would belong to the first file only, leaving every later file's boards, ports and
 * watchers running.
 */
export function afterThisTest(...cleanup: (() => Promise<void> | void)[]) {
  if (cleanups.length === 0)
    onTestFinished(async () => {
      for (const each of cleanups.splice(0).reverse()) await each();
    });
  cleanups.push(...cleanup);
}

/** Polls `probe` until it gives a value (a rejection counts as not yet). */
export async function until<T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('not in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface WiredCabinet {
  cabinet: SimulatedCabinet;
  board: LockBoard;
  /** Door positions in the order their unlock frames reached the cabinet. */
  unlocksOnWire: number[];
  /** The pseudo-terminal (pty wire): unplug and replug the "USB adapter". */
  pty?: PtySimulator;
  /** The gateway (tcp wire): drop its connections. */
  gateway?: TcpSimulator;
}

export async function wiredCabinet(
  wire: Wire,
  options: CabinetOptions,
  {
    // Generous by default: under load a slow reply must not become a failure.
    replyTimeoutMs = 1000,
    line = {},
    cabinet: description = defaultCabinet(options.boards, options.hookBitMeansClosed),
  }: {
    /** 'shared': the timings the kiosk and lockctl use (BUS_TIMINGS). */
    replyTimeoutMs?: number | 'shared';
    line?: Omit<WireOptions, 'baudRate'>;
    cabinet?: Cabinet;
  } = {},
): Promise<WiredCabinet> {
  const cabinet = new SimulatedCabinet(options);
  const unlocksOnWire: number[] = [];
  cabinet.on('unlock', (p: number) => unlocksOnWire.push(p));
  afterThisTest(() => cabinet.stop());
  let transport: Transport;
  let pty: PtySimulator | undefined;
  let gateway: TcpSimulator | undefined;
  if (wire === 'pty') {
    pty = await servePty(cabinet, { baudRate: 19200, ...line });
    afterThisTest(() => pty?.close());
    transport = serialTransport({ path: pty.path, initialBackoffMs: 100, maxBackoffMs: 400 });
  } else {
    gateway = await serveTcp(cabinet, 0, { baudRate: 19200, ...line });
    afterThisTest(() => gateway?.close());
    transport = tcpTransport({ host: '127.0.0.1', port: gateway.port, initialBackoffMs: 100 });
  }
  const board = await LockBoard.connect({
    transport,
    cabinet: description,
    ...(replyTimeoutMs === 'shared' ? {} : { replyTimeoutMs }),
  });
  afterThisTest(() => board.close());
  return { cabinet, board, unlocksOnWire, pty, gateway };
}
