import { Bus, type FrameLogger } from './bus';
import { LockDriverError } from './errors';
import { PositionMap, type PositionOverrides } from './mapping';
import { Reply, address, type ResponseFrame } from './protocol/frame';
import { requests } from './protocol/requests';
import { decodeLockStates } from './protocol/status';
import type { Transport } from './transport/transport';

export interface DoorState {
  position: number;
  closed: boolean;
  itemPresent: boolean;
}

/** What became of an `open`: the board never confirms an unlock, so it is watched. */
export type OpenOutcome = 'opened' | 'did_not_open';
/** What became of a door after it was seen open. */
export type CloseOutcome = 'closed_with_item' | 'closed_empty' | 'left_open';

export interface CycleResult {
  position: number;
  opened: OpenOutcome;
  closed: CloseOutcome | null;
  ok: boolean;
}

export interface LockBoardOptions {
  transport: Transport;
  /** Boards on the bus (numbered 0 to boards - 1), for `status()`. */
  boards: number;
  overrides?: PositionOverrides;
  /** See StatusOptions; true for the vendor's wiring. */
  hookBitMeansClosed?: boolean;
  /** Status poll period while watching a door. */
  pollIntervalMs?: number;
  /** How long a door may take to be seen open after its unlock. */
  openTimeoutMs?: number;
  replyTimeoutMs?: number;
  logger?: FrameLogger;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The cabinet as the kiosk sees it: doors by position. An unlock has no reply, so every
 * outcome is learned by reading status: "unlock sent", "seen open" and "seen closed" are
 * kept apart, and an unlock is never resent by itself (a second pulse could open a door
 * a customer just shut on a parcel).
 */
export class LockBoard {
  readonly bus: Bus;
  private readonly map: PositionMap;
  private readonly hookBitMeansClosed: boolean;
  private readonly pollIntervalMs: number;
  private readonly openTimeoutMs: number;

  constructor(private readonly options: LockBoardOptions) {
    this.bus = new Bus(options.transport, {
      replyTimeoutMs: options.replyTimeoutMs,
      logger: options.logger,
    });
    this.map = new PositionMap(options.overrides);
    this.hookBitMeansClosed = options.hookBitMeansClosed ?? true;
    this.pollIntervalMs = options.pollIntervalMs ?? 25;
    this.openTimeoutMs = options.openTimeoutMs ?? 1500;
  }

  /** Opens the transport (and so the port); fails with PORT_* codes a technician can act on. */
  static async connect(options: LockBoardOptions): Promise<LockBoard> {
    await options.transport.open();
    return new LockBoard(options);
  }

  private async boardStatus(board: number): Promise<ResponseFrame> {
    const [frame] = await this.bus.request({
      bytes: requests.status(board),
      expect: { kind: 'one', match: (f) => f.addr === address(board) && f.cmd === Reply.status },
    });
    return frame!;
  }

  async doorState(position: number): Promise<DoorState> {
    const { board, lock } = this.map.toAddress(position);
    const states = decodeLockStates(await this.boardStatus(board), {
      hookBitMeansClosed: this.hookBitMeansClosed,
    });
    const state = states[lock]!;
    return { position, closed: state.closed, itemPresent: state.itemPresent };
  }

  /** Every door of every board, in position order. */
  async status(): Promise<DoorState[]> {
    const doors: DoorState[] = [];
    for (let board = 0; board < this.options.boards; board++) {
      const states = decodeLockStates(await this.boardStatus(board), {
        hookBitMeansClosed: this.hookBitMeansClosed,
      });
      for (const s of states) {
        const position = this.map.toPosition({ board, lock: s.lock - 1 });
        if (position !== undefined)
          doors.push({ position, closed: s.closed, itemPresent: s.itemPresent });
      }
    }
    return doors.sort((a, b) => a.position - b.position);
  }

  /**
   * Sends one unlock pulse and watches the door: `opened` once it is seen open,
   * `did_not_open` (jammed, or a dead lock) if it is still closed after `openTimeoutMs`.
   */
  async open(position: number): Promise<{ outcome: OpenOutcome; elapsedMs: number }> {
    const { board, lock } = this.map.toAddress(position);
    const started = performance.now();
    await this.bus.request({
      bytes: requests.unlock(board, lock),
      expect: { kind: 'none' },
      urgent: true,
    });
    for (;;) {
      const state = await this.doorState(position);
      const elapsedMs = performance.now() - started;
      if (!state.closed) return { outcome: 'opened', elapsedMs };
      if (elapsedMs >= this.openTimeoutMs) return { outcome: 'did_not_open', elapsedMs };
      await sleep(this.pollIntervalMs);
    }
  }

  /**
   * Waits for an open door to be closed again: `closed_with_item` or `closed_empty` by the
   * infrared sensor, or `left_open` when `timeoutMs` passes first.
   */
  async waitClosed(
    position: number,
    timeoutMs: number,
    pollIntervalMs = 200,
  ): Promise<{ outcome: CloseOutcome; elapsedMs: number }> {
    const started = performance.now();
    for (;;) {
      const state = await this.doorState(position);
      const elapsedMs = performance.now() - started;
      if (state.closed)
        return { outcome: state.itemPresent ? 'closed_with_item' : 'closed_empty', elapsedMs };
      if (elapsedMs >= timeoutMs) return { outcome: 'left_open', elapsedMs };
      await sleep(Math.min(pollIntervalMs, Math.max(0, timeoutMs - elapsedMs)));
    }
  }

  /** Boards that answer a broadcast status, by number. */
  async scan(timeoutMs = 300): Promise<number[]> {
    const frames = await this.bus.request({
      bytes: requests.statusAll(),
      expect: { kind: 'many', count: 10, match: (f) => f.cmd === Reply.statusAll },
      timeoutMs,
    });
    return [...new Set(frames.map((f) => f.board))].sort((a, b) => a - b);
  }

  /** The unlock pulse length of a board, in milliseconds. */
  async unlockTime(board: number): Promise<number> {
    const [frame] = await this.bus.request({
      bytes: requests.queryUnlockTime(board),
      expect: { kind: 'one', match: (f) => f.board === board && f.cmd === Reply.unlockTime },
    });
    return ((frame!.data[2] << 8) | frame!.data[3]) * 10;
  }

  /** Sets the pulse; the board saves it to flash, so the bus stays quiet 600 ms after. */
  async setUnlockTime(board: number, ms: number): Promise<number> {
    if (!Number.isInteger(ms) || ms < 10 || ms > 655_350) {
      throw new LockDriverError('INVALID_ARGUMENT', 'unlock time must be 10 ms to 655350 ms');
    }
    const [frame] = await this.bus.request({
      bytes: requests.setUnlockTime(board, ms),
      expect: { kind: 'one', match: (f) => f.board === board && f.cmd === Reply.unlockTime },
      quietAfterMs: 600,
    });
    return ((frame!.data[2] << 8) | frame!.data[3]) * 10;
  }

  /**
   * Opens every door in turn and waits for each to be closed again: the technician's
   * cycle test. Answers each door's outcome; failures are doors that did not open or
   * were not closed within `closeTimeoutMs`.
   */
  async cycle(
    closeTimeoutMs: number,
    onDoor?: (result: CycleResult) => void,
  ): Promise<CycleResult[]> {
    const results: CycleResult[] = [];
    for (const { position } of await this.status()) {
      const opened = await this.open(position);
      const closed =
        opened.outcome === 'opened'
          ? (await this.waitClosed(position, closeTimeoutMs, 50)).outcome
          : null;
      const result = {
        position,
        opened: opened.outcome,
        closed,
        ok: opened.outcome === 'opened' && closed !== 'left_open',
      };
      onDoor?.(result);
      results.push(result);
    }
    return results;
  }

  async close(): Promise<void> {
    this.bus.drain(new LockDriverError('CLOSED', 'the lock board was closed'));
    await this.options.transport.close();
  }
}
