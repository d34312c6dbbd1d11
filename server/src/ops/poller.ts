import type { Logger } from '../logger';

export interface Poller {
  /** Run soon rather than at the next tick (after a commit that queued work). */
  nudge(): void;
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
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
