import { LockDriverError } from './errors';
import { LOCKS_PER_BOARD, MAX_BOARD } from './protocol/frame';

export interface LockAddress {
  board: number;
  /** 0-based lock index on the board (lock 1 is index 0). */
  lock: number;
}

/** Per-cabinet wiring where a door is not where the default rule puts it. */
export type PositionOverrides = Record<number, LockAddress>;

/**
 * Door positions (the vendor slot numbers) to board and lock. By default position p is
 * board (p - 1) div 16, lock (p - 1) mod 16; cabinets wired otherwise give overrides.
 */
export class PositionMap {
  constructor(private readonly overrides: PositionOverrides = {}) {
    for (const [position, a] of Object.entries(overrides)) {
      if (a.board < 0 || a.board > MAX_BOARD || a.lock < 0 || a.lock >= LOCKS_PER_BOARD) {
        throw new LockDriverError(
          'INVALID_ARGUMENT',
          `override of position ${position}: board 0-9 and lock 0-15`,
        );
      }
    }
  }

  toAddress(position: number): LockAddress {
    if (!Number.isInteger(position) || position < 1) {
      throw new LockDriverError(
        'INVALID_POSITION',
        `door position must be a whole number from 1, not ${position}`,
      );
    }
    const override = this.overrides[position];
    if (override) return override;
    const board = Math.floor((position - 1) / LOCKS_PER_BOARD);
    if (board > MAX_BOARD)
      throw new LockDriverError(
        'INVALID_POSITION',
        `position ${position} is beyond 10 boards of 16 locks`,
      );
    return { board, lock: (position - 1) % LOCKS_PER_BOARD };
  }

  /** The door a lock drives; undefined for a lock whose default door is wired elsewhere. */
  toPosition(address: LockAddress): number | undefined {
    for (const [position, a] of Object.entries(this.overrides)) {
      if (a.board === address.board && a.lock === address.lock) return Number(position);
    }
    const position = address.board * LOCKS_PER_BOARD + address.lock + 1;
    return this.overrides[position] ? undefined : position;
  }
}
