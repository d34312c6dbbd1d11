// A preload for the peak hour's servers (issue 28): prints each stall of the process's
// event loop over 40 ms with its wall-clock time, and each garbage collection over 20 ms
// with its kind, to set beside the bench's "answers over 100 ms by second" and
// PostgreSQL's log. Plain JavaScript, so the label pool's threads, which inherit the flag,
// load it too (it watches the main thread only). From server/:
//   PEAK_SERVER_NODE_ARGS="--import ./server/bench/peak/loopWatch.mjs" pnpm exec tsx bench/peak-hour.ts
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const TICK_MS = 10;
const REPORT_MS = 40;
const REPORT_GC_MS = 20;
let last = performance.now();
if (isMainThread) watch();

function watch() {
  setInterval(() => {
    const now = performance.now();
    const late = now - last - TICK_MS;
    if (late > REPORT_MS) {
      process.stderr.write(`loop stall ${Math.round(late)} ms at ${new Date().toISOString()}\n`);
    }
    last = now;
  }, TICK_MS).unref();

  const GC_KINDS = {
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.duration < REPORT_GC_MS) continue;
      const kind = entry.detail?.kind ?? -1;
      const heapMb = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
      process.stderr.write(
        `gc ${GC_KINDS[kind] ?? kind} ${Math.round(entry.duration)} ms at ${new Date().toISOString()} (heap ${heapMb} MB after)\n`,
      );
    }
  }).observe({ entryTypes: ['gc'] });
}
