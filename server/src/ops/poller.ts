import type { Logger } from '../logger';

export interface Poller {
  /** Run soon rather than at the next tick (after a commit that queued work). */
  nudge(): void;
  /** Runs now and resolves once a run that began after this call has finished. */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs `work` every `intervalMs` and on nudges, never two runs at once. `work` answers
 * true when it may have more to do right away.
 */
export function startPoller(
  name: string,
  intervalMs: number,
  log: Logger,
  work: () => Promise<boolean>,
): Poller {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const run = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          again = (await work()) || again;
        } while (again && !stopped);
      } catch (error) {
        log.error({ err: error, poller: name }, 'background work failed; will retry');
      } finally {
        running = undefined;
      }
    })();
  };

  const timer = setInterval(run, intervalMs);
  timer.unref();
  run();
  return {
    nudge: run,
    runNow: async () => {
      // A run already going may have read its work before the caller's commit: let it end,
      // then start one of our own.
      const current = (): Promise<void> | undefined => running;
      while (current()) await current();
      run();
      await current();
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
