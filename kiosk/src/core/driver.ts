import { LockDriverError, type LockBoard } from '@locker/lock-driver';

// The driver API of contracts.md, which the lock-driver branch implements. Until it is
// merged, `contractBoard` gives the kiosk that API over today's LockBoard, so the core is
// written once, against the contract.

export type OpenOutcome = 'opened' | 'already_open' | 'did_not_open' | 'unknown';
export interface OpenResult {
  position: number;
  outcome: OpenOutcome;
  pulses: 0 | 1;
  elapsedMs: number;
  seenOpenAfterMs: number | null;
}
export type DoorReading =
  | {
      position: number;
      board: number;
      lock: number;
      known: true;
      closed: boolean;
      itemPresent: boolean;
    }
  | { position: number; board: number; lock: number; known: false };
export interface CabinetReading {
  doors: DoorReading[];
  boards: { board: number; reachable: boolean }[];
}
export interface WatchOptions {
  leftOpenAfterMs: number;
  onLeftOpen?: () => void;
  signal?: AbortSignal;
  doneWhenEmpty?: boolean;
  giveUpAfterMs?: number;
  pollIntervalMs?: number;
}
export type WatchOutcome = 'closed_with_item' | 'closed_empty' | 'left_open' | 'aborted';
export interface WatchResult {
  outcome: WatchOutcome;
  at: Date;
  elapsedMs: number;
}

/** What the kiosk core needs of the door controller. */
export interface DoorBoard {
  open(position: number): Promise<OpenResult>;
  readDoors(): Promise<CabinetReading>;
  watchClosed(position: number, options: WatchOptions): Promise<WatchResult>;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** The contract's API over today's LockBoard (removed once the driver has it itself). */
export function contractBoard(board: LockBoard, boards: number): DoorBoard {
  return {
    async open(position) {
      const started = performance.now();
      const before = await board.doorState(position).catch((error: unknown) => {
        throw error instanceof LockDriverError
          ? error
          : new LockDriverError('DISCONNECTED', String(error));
      });
      if (!before.closed) {
        return {
          position,
          outcome: 'already_open',
          pulses: 0,
          elapsedMs: 0,
          seenOpenAfterMs: null,
        };
      }
      try {
        const { outcome, elapsedMs } = await board.open(position);
        return {
          position,
          outcome,
          pulses: 1,
          elapsedMs,
          seenOpenAfterMs: outcome === 'opened' ? elapsedMs : null,
        };
      } catch {
        return {
          position,
          outcome: 'unknown',
          pulses: 1,
          elapsedMs: performance.now() - started,
          seenOpenAfterMs: null,
        };
      }
    },
    async readDoors() {
      const doors: DoorReading[] = [];
      const reachable: { board: number; reachable: boolean }[] = [];
      const all = await board.status().catch(() => undefined);
      if (all) {
        for (const d of all) doors.push({ ...d, board: 0, lock: 0, known: true });
        for (let b = 0; b < boards; b++) reachable.push({ board: b, reachable: true });
        return { doors, boards: reachable };
      }
      throw new LockDriverError('DISCONNECTED', 'the door controller does not answer');
    },
    async watchClosed(position, options) {
      const started = performance.now();
      let warned = false;
      for (;;) {
        if (options.signal?.aborted) {
          return { outcome: 'aborted', at: new Date(), elapsedMs: performance.now() - started };
        }
        const state = await board.doorState(position).catch(() => undefined);
        const elapsedMs = performance.now() - started;
        if (state?.closed) {
          const outcome = state.itemPresent ? 'closed_with_item' : 'closed_empty';
          return { outcome, at: new Date(), elapsedMs };
        }
        if (elapsedMs >= options.leftOpenAfterMs) {
          if (!warned) options.onLeftOpen?.();
          warned = true;
          if (state && options.doneWhenEmpty && !state.itemPresent)
            return { outcome: 'closed_empty', at: new Date(), elapsedMs };
        }
        if (options.giveUpAfterMs !== undefined && elapsedMs >= options.giveUpAfterMs)
          return { outcome: 'left_open', at: new Date(), elapsedMs };
        await sleep(options.pollIntervalMs ?? 150, options.signal);
      }
    },
  };
}
