/**
 * lock-driver against the simulator through a pseudo-terminal (the real serial code
 * path), with the RS-485 line time of 19200 baud emulated by the simulator.
 *
 *   pnpm --filter @locker/lock-driver bench
 */
import {
  LockBoard,
  SimulatedCabinet,
  defaultCabinet,
  servePty,
  serialTransport,
} from '../src/index';

const BAUD = 19200;
const OPENS = Number(process.env.BENCH_OPENS ?? 200);
const POLL_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** 8N1: a start bit, 8 data bits, a stop bit per byte. */
const BYTES_PER_S = BAUD / 10;
/** A status exchange: a 5-byte request and a 9-byte reply. */
const EXCHANGE_BYTES = 5 + 9;

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const fixed = (n: number) => +n.toFixed(1);

/** open() on every door in turn; the spring pushes a door open 40 ms after the pulse. */
async function opens(turnaroundMs: number, busyAfterUnlockMs: number) {
  const cabinet = new SimulatedCabinet({ boards: 3, busyAfterUnlockMs });
  const sim = await servePty(cabinet, { baudRate: BAUD });
  const board = await LockBoard.connect({
    transport: serialTransport({ path: sim.path, baudRate: BAUD }),
    cabinet: defaultCabinet(3),
    turnaroundMs,
  });
  const seen: number[] = [];
  const total: number[] = [];
  try {
    for (let i = 0; i < OPENS; i++) {
      const position = (i % 48) + 1;
      cabinet.closeDoor(position);
      const result = await board.open(position);
      if (result.outcome !== 'opened') throw new Error(`door ${position}: ${result.outcome}`);
      seen.push(result.seenOpenAfterMs!);
      total.push(result.elapsedMs);
    }
    let polls = 0;
    const until = performance.now() + POLL_SECONDS * 1000;
    while (performance.now() < until) {
      await board.readDoors();
      polls++;
    }
    return { seen: seen.sort((a, b) => a - b), total: total.sort((a, b) => a - b), polls };
  } finally {
    await board.close();
    await sim.close();
    cabinet.stop();
  }
}

async function main() {
  const normal = await opens(20, 10);
  // The same without the turnaround, against a board that needs none: what the wait costs.
  const bare = await opens(0, 0);
  const row = (measure: string, v: number[]) => ({
    measure,
    p50: fixed(pct(v, 50)),
    p95: fixed(pct(v, 95)),
    p99: fixed(pct(v, 99)),
    max: fixed(v.at(-1)!),
  });
  console.log(
    `\nlock-driver, simulator on a pseudo-terminal, ${BAUD} baud line time emulated, door springs open 40 ms after the pulse (ms), ${OPENS} opens`,
  );
  console.table([
    row('unlock frame out → door seen open (turnaround 20 ms)', normal.seen),
    row('open() call → outcome (read, pulse, polls)', normal.total),
    row('unlock frame out → door seen open, no turnaround', bare.seen),
  ]);
  console.log(
    `turnaround cost at p50: ${fixed(pct(normal.seen, 50) - pct(bare.seen, 50))} ms (budget ~30 ms)`,
  );
  const limit = BYTES_PER_S / EXCHANGE_BYTES;
  const exchanges = (normal.polls * 3) / POLL_SECONDS;
  console.log(
    `readDoors() of a 3-board, 48-door cabinet: ${fixed(normal.polls / POLL_SECONDS)} polls/s = ${fixed(exchanges)} board exchanges/s; ` +
      `wire limit at ${BAUD} 8N1: ${BYTES_PER_S} bytes/s / ${EXCHANGE_BYTES} bytes per exchange = ${fixed(limit)} exchanges/s (${fixed(limit / 3)} cabinet polls/s), so ${fixed((100 * exchanges) / limit)} % of the line`,
  );
}

await main();
process.exit(0);
