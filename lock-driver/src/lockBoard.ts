import { Bus, type FrameLogger } from './bus';
import type { Cabinet } from './cabinet/schema';
import { openDoor } from './doors/open';
import type {
  BoardCheck,
  CabinetReading,
  DoorChange,
  DoorReading,
  OpenResult,
  WatchClosedOptions,
  WatchClosedResult,
  WatchDoorsOptions,
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

  /**
   * A board's status, tried `readAttempts` times; undefined when it stays silent. Each try
   * waits for any unlock in progress: its polls judge whether the board went silent after
   * the pulse (a brown-out gives `unknown`), and other reads in their place on the bus
   * would leave the unlock too few of its own to tell.
   */
  private async readBoard(board: number): Promise<ResponseFrame | undefined> {
    const attempts = this.bus.timings.readAttempts;
    for (let i = 0; i < attempts; i++) {
      while (this.opening.size > 0) await Promise.allSettled([...this.opening.values()]);
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
    const doors = this.map.positions.map((p) =>
      this.reading(p, frames.get(this.map.toAddress(p).board)),
    );
    return {
      doors,
      boards: this.cabinet.boards.map((board) => ({
        board,
        reachable: frames.get(board) !== undefined,
      })),
      suspectPolarity: this.cabinet.boards.filter((board) => {
        const own = doors.filter((d) => d.board === board);
        return own.length >= 2 && own.every((d) => d.known && !d.closed);
      }),
    };
  }

  /**
   * Watches every door until stopped (or `signal` aborts): reads the whole cabinet every
   * `intervalMs` and reports each door whose reading changed, so a door that opens while
   * no one asked it to (forced, a delayed unlock, propped) is seen. Read failures
   * (disconnected) are waited out. Runs beside open() and watchClosed(): an unlock still
   * goes ahead of its polls on the bus.
   */
  watchDoors(options: WatchDoorsOptions): { stop(): Promise<void> } {
    const stopped = new AbortController();
    const signal = options.signal
      ? AbortSignal.any([options.signal, stopped.signal])
      : stopped.signal;
    const last = new Map<number, DoorReading>();
    const same = (a: DoorReading, b: DoorReading) =>
      a.known === b.known &&
      (!a.known || !b.known || (a.closed === b.closed && a.itemPresent === b.itemPresent));
    const loop = (async () => {
      while (!signal.aborted) {
        const reading = await this.readDoors().catch(() => undefined);
        if (signal.aborted) break;
        if (reading) {
          options.onReading?.(reading);
          const at = new Date();
          for (const now of reading.doors) {
            const before = last.get(now.position);
            last.set(now.position, now);
            if (before && same(before, now)) continue;
            const bothKnown = before?.known === true && now.known;
            const change: DoorChange = {
              position: now.position,
              before,
              now,
              opened: bothKnown && before.closed && !now.closed,
              closed: bothKnown && !before.closed && now.closed,
              at,
            };
            options.onChange?.(change);
          }
        }
        // The wait ends at the interval or the abort, whichever comes first, and leaves no
        // listener behind: one left per read piled up on the kiosk's stop signal for as
        // long as it ran (a MaxListenersExceededWarning after 11 reads, and a leak).
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, options.intervalMs ?? 500);
          signal.addEventListener('abort', done, { once: true });
        });
      }
    })();
    return {
      stop: async () => {
        stopped.abort();
        await loop;
      },
    };
  }

  /**
   * Each board's firmware (F5 B6) and unlock time (0x37) read back and compared with the
   * cabinet file's `boardSettings` (what commissioning recorded): a board swapped, or reset
   * to factory (TEST pressed ten times), differs. The delayed unlock has no query: set it
   * with `settings.setUnlockDelay(board, recorded ?? 0)` instead of comparing it.
   */
  async checkBoards(): Promise<BoardCheck[]> {
    const checks: BoardCheck[] = [];
    for (const board of this.cabinet.boards) {
      const recorded = this.cabinet.boardSettings?.[String(board)] ?? {};
      try {
        const firmware = await this.settings.firmware(board);
        const unlockTimeMs = await this.settings.unlockTime(board);
        const differences: string[] = [];
        if (recorded.software !== undefined && recorded.software !== firmware.software)
          differences.push(
            `board ${board} runs software ${firmware.software}, commissioned with ${recorded.software}: swapped or re-flashed`,
          );
        if (recorded.hardware !== undefined && recorded.hardware !== firmware.hardware)
          differences.push(
            `board ${board} is hardware ${firmware.hardware}, commissioned as ${recorded.hardware}: swapped`,
          );
        if (recorded.unlockTimeMs !== undefined && recorded.unlockTimeMs !== unlockTimeMs)
          differences.push(
            `board ${board} pulses ${unlockTimeMs} ms, commissioned at ${recorded.unlockTimeMs} ms: reset to factory or changed`,
          );
        checks.push({
          board,
          reachable: true,
          software: firmware.software,
          hardware: firmware.hardware,
          unlockTimeMs,
          differences,
        });
      } catch (error) {
        if (error instanceof LockDriverError && error.code === 'DISCONNECTED') throw error;
        checks.push({ board, reachable: false, differences: [`board ${board} did not answer`] });
      }
    }
    return checks;
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
