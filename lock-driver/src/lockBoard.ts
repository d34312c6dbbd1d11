import { Bus, type FrameLogger } from './bus';
import type { Cabinet } from './cabinet/schema';
import { openDoor } from './doors/open';
import type {
  CabinetReading,
  DoorReading,
  OpenResult,
  WatchClosedOptions,
  WatchClosedResult,
} from './doors/types';
import { watchClosed } from './doors/watchClosed';
import { LockDriverError } from './errors';
import { PositionMap } from './mapping';
import { Reply, address, type ResponseFrame } from './protocol/frame';
import { requests } from './protocol/requests';
import { decodeLockStates } from './protocol/status';
import type { Transport } from './transport/transport';
import { BoardSettings } from './boardSettings';
import { DOOR_TIMINGS, type BusTimings, type DoorTimings } from './timings';

/**
 * Timings default to BUS_TIMINGS and DOOR_TIMINGS (timings.ts), the values the kiosk and
 * lockctl share; tests pass others. `readAttempts`: a noisy RS-485 line corrupts a reply
 * now and then (one in ten on a bad day): two reads made such a line read as a silent
 * board about once in a hundred opens, hence four.
 */
export interface LockBoardOptions extends Partial<BusTimings>, Partial<DoorTimings> {
  transport: Transport;
  /** Boards, wiring and polarity: the cabinet file (or a default one). */
  cabinet: Cabinet;
  logger?: FrameLogger;
}

export interface CycleResult {
  position: number;
  opened: OpenResult['outcome'];
  closed: WatchClosedResult['outcome'] | null;
  ok: boolean;
}

/**
 * The cabinet as the kiosk sees it: doors by position. An unlock has no reply, so every
 * outcome is learned by reading status: "unlock sent", "seen open" and "seen closed" are
 * kept apart, and an unlock is never resent (a second pulse could open a door a customer
 * just shut on a parcel).
 */
export class LockBoard {
  readonly bus: Bus;
  private positionMap: PositionMap;
  private described: Cabinet;
  /** Unlock time, baud, firmware: the technician's settings of each board. */
  readonly settings: BoardSettings;
  private readonly opening = new Map<number, Promise<OpenResult>>();

  constructor(private readonly options: LockBoardOptions) {
    this.bus = new Bus(options.transport, {
      replyTimeoutMs: options.replyTimeoutMs,
      guardMs: options.guardMs,
      readAttempts: options.readAttempts,
      queryAttempts: options.queryAttempts,
      flashWriteMs: options.flashWriteMs,
      logger: options.logger,
    });
    this.described = options.cabinet;
    this.positionMap = new PositionMap(options.cabinet);
    this.settings = new BoardSettings(this.bus);
  }

  /** Opens the transport (and so the port); fails with PORT_* codes a technician can act on. */
  static async connect(options: LockBoardOptions): Promise<LockBoard> {
    await options.transport.open();
    return new LockBoard(options);
  }

  get cabinet(): Cabinet {
    return this.described;
  }

  get map(): PositionMap {
    return this.positionMap;
  }

  /** Works on another description of the cabinet (lockctl, once it scanned the bus). */
  useCabinet(cabinet: Cabinet): void {
    this.described = cabinet;
    this.positionMap = new PositionMap(cabinet);
  }

  get connected(): boolean {
    return this.options.transport.connected;
  }

  private async boardStatus(board: number, urgent = false): Promise<ResponseFrame> {
    const [frame] = await this.bus.request({
      bytes: requests.status(board),
      expect: { kind: 'one', match: (f) => f.addr === address(board) && f.cmd === Reply.status },
      urgent,
    });
    return frame!;
  }

  /** One status read of a board, no retry; undefined when it stayed silent or garbled. */
  private async tryBoardStatus(board: number, urgent: boolean): Promise<ResponseFrame | undefined> {
    try {
      return await this.boardStatus(board, urgent);
    } catch (error) {
      if (error instanceof LockDriverError && error.code === 'DISCONNECTED') throw error;
      return undefined;
    }
  }

  /** A board's status, tried `readAttempts` times; undefined when it stays silent. */
  private async readBoard(board: number): Promise<ResponseFrame | undefined> {
    const attempts = this.bus.timings.readAttempts;
    for (let i = 0; i < attempts; i++) {
      const frame = await this.tryBoardStatus(board, false);
      if (frame) return frame;
    }
    return undefined;
  }

  private reading(position: number, frame: ResponseFrame | undefined): DoorReading {
    const { board, lock } = this.map.toAddress(position);
    if (!frame) return { position, board, lock, known: false };
    const state = decodeLockStates(frame, {
      hookBitMeansClosed: this.cabinet.hookBitMeansClosed,
    })[lock]!;
    return {
      position,
      board,
      lock,
      known: true,
      closed: state.closed,
      itemPresent: state.itemPresent,
    };
  }

  /** One door, read with the board's retries; known: false when its board is silent. */
  async readDoor(position: number): Promise<DoorReading> {
    const { board } = this.map.toAddress(position);
    return this.reading(position, await this.readBoard(board));
  }

  /** Every door, board by board: a silent board marks its own doors unknown. */
  async readDoors(): Promise<CabinetReading> {
    if (!this.connected) throw this.disconnected();
    const frames = new Map<number, ResponseFrame | undefined>();
    for (const board of this.cabinet.boards) frames.set(board, await this.readBoard(board));
    return {
      doors: this.map.positions.map((p) =>
        this.reading(p, frames.get(this.map.toAddress(p).board)),
      ),
      boards: this.cabinet.boards.map((board) => ({
        board,
        reachable: frames.get(board) !== undefined,
      })),
    };
  }

  private disconnected(): LockDriverError {
    return new LockDriverError(
      'DISCONNECTED',
      `${this.options.transport.description} is not connected`,
    );
  }

  /**
   * One pulse, a known outcome (see OpenResult). Rejects only before anything was sent:
   * DISCONNECTED or INVALID_ARGUMENT. A second call for a door being opened joins the
   * first instead of pulsing again.
   */
  open(position: number): Promise<OpenResult> {
    let address: { board: number; lock: number };
    try {
      address = this.map.toAddress(position);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const { board, lock } = address;
    if (!this.connected) return Promise.reject(this.disconnected());
    const pending = this.opening.get(position);
    if (pending) return pending;
    const attempt = openDoor(
      {
        read: async (p, urgent) => this.reading(p, await this.tryBoardStatus(board, urgent)),
        pulse: async () => {
          let sentAt = performance.now();
          await this.bus.request({
            bytes: requests.unlock(board, lock),
            expect: { kind: 'none' },
            urgent: true,
            onSent: (at) => (sentAt = at),
          });
          return sentAt;
        },
      },
      position,
      {
        turnaroundMs: this.options.turnaroundMs ?? DOOR_TIMINGS.turnaroundMs,
        pollIntervalMs: this.options.pollIntervalMs ?? DOOR_TIMINGS.pollIntervalMs,
        openTimeoutMs: this.options.openTimeoutMs ?? DOOR_TIMINGS.openTimeoutMs,
        attempts: this.bus.timings.readAttempts,
      },
    ).finally(() => this.opening.delete(position));
    this.opening.set(position, attempt);
    return attempt;
  }

  /** The one door-close watcher: see WatchClosedOptions. */
  watchClosed(position: number, options: WatchClosedOptions): Promise<WatchClosedResult> {
    this.map.toAddress(position);
    return watchClosed(() => this.readDoor(position), options);
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

  /**
   * Opens every door in turn and waits for each to be closed again: the technician's
   * cycle test. A door is ok only if it opened on its pulse and was shut in time.
   */
  async cycle(
    closeTimeoutMs: number,
    onDoor?: (result: CycleResult) => void,
    positions = this.map.positions,
  ): Promise<CycleResult[]> {
    const results: CycleResult[] = [];
    for (const position of positions) {
      const opened = await this.open(position);
      const closed =
        opened.outcome === 'opened'
          ? (
              await this.watchClosed(position, {
                leftOpenAfterMs: closeTimeoutMs,
                giveUpAfterMs: closeTimeoutMs,
                pollIntervalMs: 50,
              })
            ).outcome
          : null;
      const result = {
        position,
        opened: opened.outcome,
        closed,
        ok:
          opened.outcome === 'opened' &&
          (closed === 'closed_empty' || closed === 'closed_with_item'),
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
