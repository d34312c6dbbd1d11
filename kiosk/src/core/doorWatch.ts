import type { LockBoard } from '@locker/lock-driver';

export interface Closed {
  itemPresent: boolean;
  at: Date;
}

/**
 * The kiosk's door sessions on the driver's one door-close watcher (LockBoard.watchClosed).
 * Kept as a thin adapter until the kiosk core calls watchClosed itself.
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
  const abort = new AbortController();
  const check = options.cancelled
    ? setInterval(() => options.cancelled?.() && abort.abort(), 50)
    : undefined;
  try {
    const watched = await board.watchClosed(position, {
      leftOpenAfterMs: options.leftOpenMs,
      onLeftOpen: options.onLeftOpen,
      doneWhenEmpty: options.doneWhenEmpty,
      pollIntervalMs: options.pollMs ?? 150,
      signal: abort.signal,
    });
    switch (watched.outcome) {
      case 'closed_with_item':
        return { itemPresent: true, at: watched.at };
      case 'closed_empty':
        return { itemPresent: false, at: watched.at };
      case 'aborted':
      case 'left_open':
        return 'cancelled';
      default: {
        const unknown: never = watched.outcome;
        throw new Error(`unknown watch outcome ${String(unknown)}`);
      }
    }
  } finally {
    clearInterval(check);
  }
}
