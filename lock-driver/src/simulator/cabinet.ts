import { EventEmitter } from 'node:events';
import {
  BAUD_CODES,
  BROADCAST,
  Command,
  LOCKS_PER_BOARD,
  Reply,
  address,
  encodeResponse,
} from '../protocol/frame';
import { encodeLockStates } from '../protocol/status';
import type { RequestFrame } from './requestParser';

interface SimLock {
  closed: boolean;
  itemPresent: boolean;
  jammed: boolean;
  /** What happens the next time this door opens. */
  onNextOpen?: { closeAfterMs: number; itemPresent: boolean };
}

export interface CabinetOptions {
  boards: number;
  /** Vendor wiring (1 = closed) unless false. */
  hookBitMeansClosed?: boolean;
  /** Time from the unlock pulse to the spring pushing the door open. */
  openDelayMs?: number;
  /** Positions holding an item at start. */
  itemsAt?: number[];
  /** Every opened door is shut again this long after it opened. */
  autoCloseMs?: number;
  /**
   * Demo mode, with autoCloseMs: whoever shuts the door changed what is inside, as a
   * courier or a returning customer (puts a parcel in) and a recipient (takes it) do.
   */
  autoCloseTogglesItem?: boolean;
}

/**
 * A cabinet of KR-CU16 boards that answers like the hardware: status and infrared bits,
 * no reply to an unlock, one frame per board in turn to a broadcast, unlock time kept
 * per board. Scriptable for tests and the demo: jam a door, close it after N ms with or
 * without the item, make a board stop answering.
 */
export class SimulatedCabinet extends EventEmitter {
  private readonly locks: SimLock[][];
  private readonly unresponsive = new Set<number>();
  private readonly unlockTimeUnits: number[];
  private readonly timers = new Set<NodeJS.Timeout>();
  readonly hookBitMeansClosed: boolean;
  readonly openDelayMs: number;
  baudCode: number = BAUD_CODES[19200];

  constructor(readonly options: CabinetOptions) {
    super();
    this.hookBitMeansClosed = options.hookBitMeansClosed ?? true;
    this.openDelayMs = options.openDelayMs ?? 40;
    this.locks = Array.from({ length: options.boards }, () =>
      Array.from({ length: LOCKS_PER_BOARD }, () => ({
        closed: true,
        itemPresent: false,
        jammed: false,
      })),
    );
    this.unlockTimeUnits = Array.from({ length: options.boards }, () => 55);
    for (const p of options.itemsAt ?? []) this.lock(p).itemPresent = true;
  }

  private lock(position: number): SimLock {
    const lock =
      this.locks[Math.floor((position - 1) / LOCKS_PER_BOARD)]?.[(position - 1) % LOCKS_PER_BOARD];
    if (!lock) throw new Error(`the simulated cabinet has no position ${position}`);
    return lock;
  }

  private later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, ms);
    this.timers.add(timer);
  }

  // ---- scripting -------------------------------------------------------------------

  door(position: number): { closed: boolean; itemPresent: boolean } {
    const { closed, itemPresent } = this.lock(position);
    return { closed, itemPresent };
  }

  jam(position: number, jammed = true): void {
    this.lock(position).jammed = jammed;
  }

  /** The next time the door opens, someone closes it after `ms`, leaving the item or not. */
  closeAfterOpen(position: number, closeAfterMs: number, itemPresent: boolean): void {
    this.lock(position).onNextOpen = { closeAfterMs, itemPresent };
  }

  /** Someone opened the door by hand (or it was never shut). */
  openDoor(position: number): void {
    this.lock(position).closed = false;
    this.emit('door', position, this.door(position));
  }

  closeDoor(position: number, itemPresent = this.lock(position).itemPresent): void {
    Object.assign(this.lock(position), { closed: true, itemPresent });
    this.emit('door', position, this.door(position));
  }

  setItem(position: number, itemPresent: boolean): void {
    this.lock(position).itemPresent = itemPresent;
  }

  setResponsive(board: number, responsive: boolean): void {
    if (responsive) this.unresponsive.delete(board);
    else this.unresponsive.add(board);
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  // ---- the board side of the protocol ------------------------------------------------

  private pulse(board: number, lockIndex: number): void {
    const position = board * LOCKS_PER_BOARD + lockIndex + 1;
    const lock = this.locks[board]?.[lockIndex];
    if (!lock) return;
    this.emit('unlock', position);
    if (lock.jammed || !lock.closed) return;
    this.later(this.openDelayMs, () => {
      lock.closed = false;
      this.emit('door', position, this.door(position));
      const next = lock.onNextOpen;
      lock.onNextOpen = undefined;
      if (next) this.later(next.closeAfterMs, () => this.closeDoor(position, next.itemPresent));
      else if (this.options.autoCloseMs !== undefined) {
        const toggle = this.options.autoCloseTogglesItem;
        this.later(this.options.autoCloseMs, () =>
          this.closeDoor(position, toggle ? !lock.itemPresent : lock.itemPresent),
        );
      }
    });
  }

  private statusData(board: number): [number, number, number, number] {
    return encodeLockStates(this.locks[board]!, { hookBitMeansClosed: this.hookBitMeansClosed });
  }

  private answers(board: number): boolean {
    return board < this.locks.length && !this.unresponsive.has(board);
  }

  /** The frames the bus carries back for one request (none for an unlock). */
  handle(request: RequestFrame): Buffer[] {
    const board = request.addr >> 4;
    const lockIndex = request.addr & 0x0f;
    if (request.cmd === Command.statusAll && request.addr === BROADCAST) {
      return this.locks.flatMap((_, b) =>
        this.answers(b) ? [encodeResponse(address(b), Reply.statusAll, this.statusData(b))] : [],
      );
    }
    if (!this.answers(board)) return [];
    switch (request.cmd) {
      case Command.status:
        return [encodeResponse(address(board), Reply.status, this.statusData(board))];
      case Command.unlock:
        this.pulse(board, lockIndex);
        return [];
      case Command.openAll: {
        // Opens every lock in turn, one pulse apart; answers the status at the start.
        const reply = encodeResponse(address(board), Reply.status, this.statusData(board));
        for (let i = 0; i < LOCKS_PER_BOARD; i++)
          this.later(i * this.unlockTimeUnits[board]! * 10, () => this.pulse(board, i));
        return [reply];
      }
      case Command.unlockTime: {
        if (request.data.length === 2) {
          this.unlockTimeUnits[board] = (request.data[0]! << 8) | request.data[1]!;
          const units = this.unlockTimeUnits[board];
          return [
            encodeResponse(address(board), Reply.unlockTime, [0, 0, units >> 8, units & 0xff]),
          ];
        }
        const units = this.unlockTimeUnits[board]!;
        const [d1, d2] = this.statusData(board);
        return [
          encodeResponse(address(board), Reply.unlockTime, [d1, d2, units >> 8, units & 0xff]),
        ];
      }
      case Command.setBaud: {
        const code = request.data[0] ?? 0;
        this.baudCode = code;
        return [encodeResponse(address(board), Reply.setBaud, [code, 0, 0, code])];
      }
      default:
        return [];
    }
  }
}
