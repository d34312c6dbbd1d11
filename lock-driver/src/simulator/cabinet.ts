import { EventEmitter } from 'node:events';
import { BAUD_CODES, LOCKS_PER_BOARD } from '../protocol/frame';
import { answerRequest, type BoardSide } from './answers';
import { loadDoorState, saveDoorState, type SimDoor } from './stateFile';
import type { RequestFrame } from './requestParser';

interface SimLock extends SimDoor {
  jammed: boolean;
  /** Held open (a wedge, a parcel sticking out): it cannot be shut until released. */
  propped: boolean;
  /** False: no door on this lock channel (its hook and item inputs read 0). */
  wired: boolean;
  /** What happens the next time this door opens. */
  onNextOpen?: { closeAfterMs: number; itemPresent: boolean };
}

export interface CabinetOptions {
  /** Boards 0 to boards - 1 on the bus. */
  boards: number;
  /** Vendor wiring (1 = closed) unless false. Fault: false reads every door the other way. */
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
  /** Fault: doors propped open (an item in them per itemsAt); they cannot be shut. */
  propped?: number[];
  /** Fault: every board's delayed unlock (0x39), in seconds: doors open that long after the pulse. */
  unlockDelayS?: number;
  /** Fault: at every pulse the board loses power for this long and the pulse is lost (a brown-out). */
  powerCutAfterPulseMs?: number;
  /** Fault: a gateway that holds bytes: this long between the bytes of a reply. */
  replyByteGapMs?: number;
  /** Fault: the rate every board is set to (the line is 19200 unless the wire says otherwise). */
  boardBaud?: number;
  /** Fault: only locks 1 to N of each board have a door; the others read 0 (open, in vendor wiring). */
  doorsWired?: number;
  /** Fault: these positions have no door on their lock channel. */
  unwired?: number[];
  /** Software and hardware version every board answers to F5 B6 (default 1, 1). */
  version?: [number, number];
  /** Doors' state (open/closed, contents) kept in this JSON file across restarts. */
  stateFile?: string;
}

const RATE_OF_CODE = Object.fromEntries(Object.entries(BAUD_CODES).map(([r, c]) => [c, +r]));

/**
 * A cabinet of KR-CU16 boards that answers like the hardware (see answers.ts), with its
 * faults, each of which can be switched on at construction or while running: a jammed or
 * propped-open door, inverted hook polarity, a delayed unlock, a board losing power at
 * the pulse, a dead board, lost replies, slow reply bytes, boards at another baud rate,
 * lock channels without a door. Events: 'unlock' (an unlock reached a board, position),
 * 'pulse' (the lock fired, after any delayed unlock), 'door' (a door moved), 'powerCut',
 * 'answered', 'dropped', 'missed', 'discarded'.
 */
export class SimulatedCabinet extends EventEmitter implements BoardSide {
  private readonly locks: SimLock[][];
  private readonly unresponsive: Set<number>;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly lastPulseAt = new Map<number, number>();
  private readonly poweredOffUntil = new Map<number, number>();
  private readonly powerCutArmed = new Map<number, number>();
  private readonly erased = new Set<number>();
  private toDrop = 0;
  private nextReplyDelayMs = 0;
  /** The rate the line runs at for the request being answered (set by the wire). */
  private lineBaud: number | undefined;
  readonly hookBitMeansClosed: boolean;
  readonly openDelayMs: number;
  readonly unlockUnits: number[];
  readonly unlockDelayS: number[];
  /** Each board's baud rate; a request at another rate is garbage to it. */
  readonly boardBaud: number[];
  readonly versions: [number, number][];
  maxUnlockUnits = 0xffff;
  /** Fault, switchable: ms between the bytes of every reply (a gateway's packing). */
  replyByteGapMs: number;
  /** Fault, switchable: every board loses power at each pulse for this long. */
  powerCutAfterPulseMs: number;

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
        propped: false,
        wired: l < (options.doorsWired ?? LOCKS_PER_BOARD),
      })),
    );
    const each = <T>(value: () => T) => Array.from({ length: options.boards }, value);
    this.unlockUnits = each(() => 55);
    this.unlockDelayS = each(() => options.unlockDelayS ?? 0);
    this.boardBaud = each(() => options.boardBaud ?? 19200);
    this.versions = each(() => options.version ?? [1, 1]);
    this.replyByteGapMs = options.replyByteGapMs ?? 0;
    this.powerCutAfterPulseMs = options.powerCutAfterPulseMs ?? 0;
    this.unresponsive = new Set(options.deadBoards ?? []);
    if (!saved) for (const p of options.itemsAt ?? []) this.lock(p).itemPresent = true;
    for (const p of options.jammed ?? []) this.lock(p).jammed = true;
    for (const p of options.unwired ?? []) this.unwire(p);
    for (const p of options.propped ?? []) this.propOpen(p);
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

  /** Shuts the door, unless it is propped open (or has no door). */
  closeDoor(position: number, itemPresent = this.lock(position).itemPresent): void {
    const lock = this.lock(position);
    if (lock.propped || !lock.wired) {
      lock.itemPresent = itemPresent && lock.wired;
      return this.changed(position);
    }
    Object.assign(lock, { closed: true, itemPresent });
    this.changed(position);
  }

  /** Fault: the door stands propped open, with an item in it or not, until `unprop`. */
  propOpen(position: number, itemPresent = this.lock(position).itemPresent): void {
    Object.assign(this.lock(position), { propped: true, closed: false, itemPresent });
    this.changed(position);
  }

  unprop(position: number): void {
    this.lock(position).propped = false;
  }

  /** Fault: no door on this lock channel (a board with fewer than 16 doors wired). */
  unwire(position: number): void {
    Object.assign(this.lock(position), { wired: false, closed: false, itemPresent: false });
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

  /** Fault: the next reply is held this long before its first byte (a late reply). */
  delayNextReply(ms: number): void {
    this.nextReplyDelayMs = ms;
  }

  /** Fault: the board's delayed unlock (what 0x39 sets). */
  setUnlockDelay(board: number, seconds: number): void {
    this.unlockDelayS[board] = seconds;
  }

  /** Fault: at the next unlock the board loses power for `offMs`; the pulse is lost. */
  cutPowerOnNextPulse(board: number, offMs: number): void {
    this.powerCutArmed.set(board, offMs);
  }

  /** Fault: the board is set to another baud rate (what 0x40 sets). */
  setBoardBaud(board: number, baud: number): void {
    this.boardBaud[board] = baud;
  }

  setVersion(board: number, software: number, hardware: number): void {
    this.versions[board] = [software, hardware];
  }

  /** True once the board received F5 B5: its application is gone. */
  isErased(board: number): boolean {
    return this.erased.has(board);
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  // ---- the board side of the protocol ------------------------------------------------

  private powered(board: number): boolean {
    return (this.poweredOffUntil.get(board) ?? 0) <= performance.now();
  }

  answering(): number[] {
    return this.locks
      .map((_, b) => b)
      .filter(
        (b) =>
          !this.unresponsive.has(b) &&
          !this.erased.has(b) &&
          this.powered(b) &&
          (this.lineBaud === undefined || this.boardBaud[b] === this.lineBaud),
      );
  }

  statusData(board: number): [number, number, number, number] {
    const data: [number, number, number, number] = [0, 0, 0, 0];
    this.locks[board]!.forEach((lock, i) => {
      const hook = lock.wired && lock.closed === this.hookBitMeansClosed ? 1 : 0;
      const item = lock.wired && lock.itemPresent ? 1 : 0;
      const slot = i < 8 ? 0 : 1;
      data[slot] = data[slot] | (hook << (i % 8));
      data[slot + 2] = data[slot + 2]! | (item << (i % 8));
    });
    return data;
  }

  version(board: number): [number, number] {
    return this.versions[board]!;
  }

  erase(board: number): void {
    this.erased.add(board);
    this.emit('erased', board);
  }

  switchBaud(board: number, code: number): void {
    this.boardBaud[board] = RATE_OF_CODE[code]!;
  }

  /** An unlock request reached the board: after `afterMs` and its delayed unlock, the lock fires. */
  unlock(board: number, lockIndex: number, afterMs = 0): void {
    const position = board * LOCKS_PER_BOARD + lockIndex + 1;
    if (!this.locks[board]?.[lockIndex]) return;
    this.emit('unlock', position);
    this.toDrop = this.options.dropAfterUnlock ?? 0;
    const cut = this.powerCutArmed.get(board) ?? this.powerCutAfterPulseMs;
    if (cut > 0) {
      // The solenoid pulls the supply down: the board resets and the pulse is lost.
      this.powerCutArmed.delete(board);
      this.poweredOffUntil.set(board, performance.now() + cut);
      this.emit('powerCut', board, cut);
      return;
    }
    const wait = afterMs + this.unlockDelayS[board]! * 1000;
    if (wait > 0) this.later(wait, () => this.fire(board, lockIndex));
    else this.fire(board, lockIndex);
  }

  private fire(board: number, lockIndex: number): void {
    const position = board * LOCKS_PER_BOARD + lockIndex + 1;
    const lock = this.locks[board]![lockIndex]!;
    this.emit('pulse', position);
    this.lastPulseAt.set(board, performance.now());
    if (lock.jammed || !lock.closed || !lock.wired) return;
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

  /** How the wire delivers the replies to the request just handled: its faults. */
  delivery(): { delayMs: number; byteGapMs: number } {
    const delayMs = this.nextReplyDelayMs;
    this.nextReplyDelayMs = 0;
    return { delayMs, byteGapMs: this.replyByteGapMs };
  }

  /**
   * The frames the bus carries back for one request (none for an unlock), faults applied.
   * `lineBaud`: the rate the request was sent at, where the wire knows it; boards set to
   * another rate hear garbage and stay silent.
   */
  handle(request: RequestFrame, lineBaud?: number): Buffer[] {
    const pulsedAt = this.lastPulseAt.get(request.addr >> 4);
    if (
      request.framing === 'stx' &&
      pulsedAt !== undefined &&
      performance.now() - pulsedAt < (this.options.busyAfterUnlockMs ?? 10)
    ) {
      this.emit('missed', request);
      return [];
    }
    this.lineBaud = lineBaud;
    const replies = answerRequest(this, request);
    this.lineBaud = undefined;
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
