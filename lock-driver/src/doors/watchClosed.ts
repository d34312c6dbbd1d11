import { setTimeout as sleep } from 'node:timers/promises';
import type { DoorReading, WatchClosedOptions, WatchClosedResult } from './types';

/**
 * The one door-close watcher. Keeps watching through read errors (a door is done only
 * when it is seen shut); warns once when left open; gives up only when told to.
 */
export async function watchClosed(
  read: () => Promise<DoorReading>,
  options: WatchClosedOptions,
): Promise<WatchClosedResult> {
  const started = performance.now();
  const done = (outcome: WatchClosedResult['outcome']) => ({
    outcome,
    at: new Date(),
    elapsedMs: performance.now() - started,
  });
  let warned = false;
  for (;;) {
    if (options.signal?.aborted) return done('aborted');
    const reading = await read().catch(() => undefined);
    if (options.signal?.aborted) return done('aborted');
    const elapsed = performance.now() - started;
    if (reading?.known && reading.closed)
      return done(reading.itemPresent ? 'closed_with_item' : 'closed_empty');
    if (elapsed >= options.leftOpenAfterMs) {
      if (!warned) options.onLeftOpen?.();
      warned = true;
      if (options.doneWhenEmpty && reading?.known && !reading.itemPresent)
        return done('closed_empty');
    }
    if (options.giveUpAfterMs !== undefined && elapsed >= options.giveUpAfterMs)
      return done('left_open');
    const wait = options.pollIntervalMs ?? 150;
    const remaining =
      options.giveUpAfterMs === undefined ? wait : Math.max(0, options.giveUpAfterMs - elapsed);
    try {
      await sleep(Math.min(wait, remaining), undefined, { signal: options.signal });
    } catch {
      return done('aborted');
    }
  }
}
