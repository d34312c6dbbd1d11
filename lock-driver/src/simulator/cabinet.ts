import { EventEmitter } from 'node:events';
import { BAUD_CODES, LOCKS_PER_BOARD } from '../protocol/frame';
import { encodeLockStates } from '../protocol/status';
import { answerRequest, type BoardSide } from './answers';
import { loadDoorState, saveDoorState, type SimDoor } from './stateFile';
import type { RequestFrame } from './requestParser';

interface SimLock extends SimDoor {
  jammed: boolean;
  /** What happens the next time this door opens. */
  onNextOpen?: { closeAfterMs: number; itemPresent: boolean };
}

export interface CabinetOptions {
  /** Boards 0 to boards - 1 on the bus. */
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
  /**
   * A board busy driving a solenoid misses what is sent to it this long after an unlock
   * (the turnaround a driver must leave before its first poll). Default 10 ms.
   */
  busyAfterUnlockMs?: number;
  /** Fault: the next N replies after each unlock are lost (a noisy bus, a slow board). */
  dropAfterUnlock?: number;
  /** Fault: boards that never answer (dead, unpowered, wrong DIP switch). */
  deadBoards?: number[];
  /** Fault: doors whose lock does not open on a pulse. */
  jammed?: number[];
  /** Doors' state (open/closed, contents) kept in this JSON file across restarts. */
  stateFile?: string;
}

/**
 * A cabinet of KR-CU16 boards that answers like the hardware (see answers.ts), with its
 * faults. Scriptable for tests and the demo: jam a door, close it after N ms with or
 * without the item, make a board stop answering, lose replies after an unlock.
 */
export class SimulatedCabinet extends EventEmitter implements BoardSide {
  private readonly locks: SimLock[][];
  private readonly unresponsive: Set<number>;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly lastPulseAt = new Map<number, number>();
  private toDrop = 0;
  readonly hookBitMeansClosed: boolean;
  readonly openDelayMs: number;
  readonly unlockUnits: number[];
  maxUnlockUnits = 0xffff;
  baudCode: number = BAUD_CODES[19200];
  firmware: [number, number, number, number] = [1, 6, 0x00, 0x2a];

  constructor(readonly options: CabinetOptions) {
    super();
    this.hookBitMeansClosed = options.hookBitMeansClosed ?? true;
    this.openDelayMs = options.openDelayMs ?? 40;
    const saved = options.stateFile ? loadDoorState(options.stateFile) : undefined;
    this.locks = Array.from({ length: options.boards }, (_, b) =>
      Array.from({ length: LOCKS_PER_BOARD }, (_, l) => ({
        closed: saved?.[b * LOCKS_PER_BOARD + l + 1]?.closed ?? true,
        itemPresent: saved?.[b * LOCKS_PER_BOARD + l + 1]?.itemPresent ?? false,
        jammed: false,
      })),
    );
    this.unlockUnits = Array.from({ length: options.boards }, () => 55);
    this.unresponsive = new Set(options.deadBoards ?? []);
    if (!saved) for (const p of options.itemsAt ?? []) this.lock(p).itemPresent = true;
    for (const p of options.jammed ?? []) this.lock(p).jammed = true;
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

  private changed(position: number): void {
    if (this.options.stateFile) saveDoorState(this.options.stateFile, this.locks);
    this.emit('door', position, this.door(position));
  }

  // ---- scripting -------------------------------------------------------------------

  get positions(): number {
    return this.locks.length * LOCKS_PER_BOARD;
  }

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
    this.changed(position);
  }

  closeDoor(position: number, itemPresent = this.lock(position).itemPresent): void {
    Object.assign(this.lock(position), { closed: true, itemPresent });
    this.changed(position);
  }

  setItem(position: number, itemPresent: boolean): void {
    this.lock(position).itemPresent = itemPresent;
    this.changed(position);
  }

  setResponsive(board: number, responsive: boolean): void {
    if (responsive) this.unresponsive.delete(board);
    else this.unresponsive.add(board);
  }

  /** Fault: the next `count` replies are lost on the line (the requests reach the board). */
  loseReplies(count: number): void {
    this.toDrop = count;
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  // ---- the board side of the protocol ------------------------------------------------

  answering(): number[] {
    return this.locks.map((_, b) => b).filter((b) => !this.unresponsive.has(b));
  }

  statusData(board: number): [number, number, number, number] {
    return encodeLockStates(this.locks[board]!, { hookBitMeansClosed: this.hookBitMeansClosed });
  }

  pulse(board: number, lockIndex: number, delayMs = 0): void {
    if (delayMs > 0) return this.later(delayMs, () => this.pulse(board, lockIndex));
    const position = board * LOCKS_PER_BOARD + lockIndex + 1;
    const lock = this.locks[board]?.[lockIndex];
    if (!lock) return;
    this.emit('unlock', position);
    this.lastPulseAt.set(board, performance.now());
    this.toDrop = this.options.dropAfterUnlock ?? 0;
    if (lock.jammed || !lock.closed) return;
    this.later(this.openDelayMs, () => {
      lock.closed = false;
      this.changed(position);
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

  /** The frames the bus carries back for one request (none for an unlock), faults applied. */
  handle(request: RequestFrame): Buffer[] {
    const pulsedAt = this.lastPulseAt.get(request.addr >> 4);
    if (
      pulsedAt !== undefined &&
      performance.now() - pulsedAt < (this.options.busyAfterUnlockMs ?? 10)
    ) {
      this.emit('missed', request);
      return [];
    }
    const replies = answerRequest(this, request);
    if (replies.length > 0 && this.toDrop > 0) {
      this.toDrop--;
      this.emit('dropped', request);
      return [];
    }
    // What the board answered on the line: tests count the reads a driver made.
    if (replies.length > 0) this.emit('answered', request);
    return replies;
  }
}
