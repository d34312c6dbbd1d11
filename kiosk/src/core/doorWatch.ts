import type { LockBoard } from '@locker/lock-driver';

export interface Closed {
  itemPresent: boolean;
  at: Date;
}

/**
 * Waits until the door is closed, reporting `left_open` once it has been open longer than
 * `leftOpenMs` and going on watching after that: a door is only done when it is shut.
 * With `doneWhenEmpty`, a door found empty counts as done even if left open (the
 * customer took the parcel and walked away).
 */
export async function watchUntilClosed(
  board: LockBoard,
  position: number,
  options: {
    leftOpenMs: number;
    pollMs?: number;
    doneWhenEmpty?: boolean;
    cancelled?: () => boolean;
    onLeftOpen?: () => void;
  },
): Promise<Closed | 'cancelled'> {
  const started = Date.now();
  let warned = false;
  for (;;) {
    if (options.cancelled?.()) return 'cancelled';
    const state = await board.doorState(position).catch(() => undefined);
    if (state?.closed) return { itemPresent: state.itemPresent, at: new Date() };
    if (state && Date.now() - started > options.leftOpenMs) {
      if (!warned) options.onLeftOpen?.();
      warned = true;
      if (options.doneWhenEmpty && !state.itemPresent)
        return { itemPresent: false, at: new Date() };
    }
    await new Promise((r) => setTimeout(r, options.pollMs ?? 150));
  }
}
