import type { Logger } from '../logger';

export interface Poller {
  /** Run soon rather than at the next tick (after a commit that queued work). */
  nudge(): void;
  /** Runs now and resolves once a run that began after this call has finished. */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

export interface PollerOptions {
  /**
   * Nudges that come within this long of a run's start are gathered into one run at its
   * end (issue 28: under load every commit nudges, and each run costs PostgreSQL about
   * the same however much it finds). A run that found a full batch goes on at once;
   * `runNow` never waits. 0: each nudge runs as soon as the run before it ends.
   */
  gatherMs?: number;
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
  { gatherMs = 0 }: PollerOptions = {},
): Poller {
  const gather = startGathering(gatherMs);
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const run = (now = false): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    if (!now && gather.defer(() => run(true))) return;
    gather.began();
    running = (async () => {
      try {
        // A full batch: the next at once, however recently this one began.
        while ((await work()) && !stopped) gather.began();
      } catch (error) {
        log.error({ err: error, poller: name }, 'background work failed; will retry');
      } finally {
        running = undefined;
      }
      if (again) {
        again = false;
        run();
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
      run(true);
      await current();
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      gather.cancel();
      await running;
    },
  };
}

/**
 * When a run may start, for a worker whose runs are gathered (`gatherMs` apart at the
 * most often): `defer(start)` answers false when a run may start now, else schedules
 * `start` once for when it may (later calls join that one) and answers true.
 */
export function startGathering(gatherMs: number) {
  let lastStart = -Infinity;
  let deferred: NodeJS.Timeout | undefined;
  return {
    defer(start: () => void): boolean {
      const wait = lastStart + gatherMs - performance.now();
      if (wait <= 0) return false;
      deferred ??= setTimeout(() => {
        deferred = undefined;
        start();
      }, wait);
      return true;
    },
    /** A run starts now: one deferred is no longer needed. */
    began(): void {
      lastStart = performance.now();
      clearTimeout(deferred);
      deferred = undefined;
    },
    cancel(): void {
      clearTimeout(deferred);
      deferred = undefined;
    },
  };
}
