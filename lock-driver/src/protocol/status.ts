import { LOCKS_PER_BOARD, type ResponseFrame } from './frame';

export interface LockState {
  /** 1-based lock number on its board. */
  lock: number;
  closed: boolean;
  itemPresent: boolean;
}

export interface StatusOptions {
  /**
   * In the vendor's examples a hook bit of 1 means locked (door closed). Boards wired
   * with normally-closed switches read the other way: set false for those.
   */
  hookBitMeansClosed: boolean;
}

const bit = (low: number, high: number, index: number) =>
  index < 8 ? (low >> index) & 1 : (high >> (index - 8)) & 1;

/** D1/D2: hook bits of locks 1-8 / 9-16; D3/D4: infrared bits, 1 = item present. */
export function decodeLockStates(frame: ResponseFrame, options: StatusOptions): LockState[] {
  const [d1, d2, d3, d4] = frame.data;
  return Array.from({ length: LOCKS_PER_BOARD }, (_, i) => ({
    lock: i + 1,
    closed: (bit(d1, d2, i) === 1) === options.hookBitMeansClosed,
    itemPresent: bit(d3, d4, i) === 1,
  }));
}

/** The inverse, used by the simulator: lock states to D1..D4. */
export function encodeLockStates(
  states: { closed: boolean; itemPresent: boolean }[],
  options: StatusOptions,
): [number, number, number, number] {
  const data: [number, number, number, number] = [0, 0, 0, 0];
  states.forEach((s, i) => {
    const hook = s.closed === options.hookBitMeansClosed ? 1 : 0;
    const slot = i < 8 ? 0 : 1;
    data[slot] = data[slot] | (hook << (i % 8));
    data[slot + 2] = data[slot + 2]! | ((s.itemPresent ? 1 : 0) << (i % 8));
  });
  return data;
}
