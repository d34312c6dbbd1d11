// A preload for the peak hour's servers (issue 28): prints each stall of the process's
// event loop over 40 ms with its wall-clock time, to set beside the bench's "answers over
// 100 ms by second" and PostgreSQL's log. From server/:
//   PEAK_SERVER_NODE_ARGS="--import tsx --import ./server/bench/peak/loopWatch.ts" pnpm exec tsx bench/peak-hour.ts
const TICK_MS = 10;
const REPORT_MS = 40;
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  const late = now - last - TICK_MS;
  if (late > REPORT_MS) {
    process.stderr.write(`loop stall ${Math.round(late)} ms at ${new Date().toISOString()}\n`);
  }
  last = now;
}, TICK_MS).unref();
