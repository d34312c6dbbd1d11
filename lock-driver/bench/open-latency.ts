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

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main() {
  // The spring pushes a door open about 40 ms after the pulse starts (simulator default).
  const cabinet = new SimulatedCabinet({ boards: 3 });
  const sim = await servePty(cabinet, { baudRate: BAUD });
  const board = await LockBoard.connect({
    transport: serialTransport({ path: sim.path, baudRate: BAUD }),
    cabinet: defaultCabinet(3),
  });
  try {
    const latencies: number[] = [];
    for (let i = 0; i < OPENS; i++) {
      const position = (i % 48) + 1;
      cabinet.closeDoor(position);
      const { outcome, elapsedMs } = await board.open(position);
      if (outcome !== 'opened') throw new Error(`door ${position} did not open`);
      latencies.push(elapsedMs);
    }
    latencies.sort((a, b) => a - b);

    let polls = 0;
    const until = performance.now() + POLL_SECONDS * 1000;
    while (performance.now() < until) {
      await board.readDoors();
      polls++;
    }
    const rows = [
      {
        measure: `open(position) → door seen open, ${OPENS} opens`,
        p50: pct(latencies, 50),
        p95: pct(latencies, 95),
        p99: pct(latencies, 99),
        max: latencies.at(-1)!,
      },
    ].map((r) => ({
      ...r,
      p50: +r.p50.toFixed(1),
      p95: +r.p95.toFixed(1),
      p99: +r.p99.toFixed(1),
      max: +r.max.toFixed(1),
    }));
    console.log(
      `\nlock-driver, simulator on a pseudo-terminal, ${BAUD} baud line time emulated, default poll settings (ms)`,
    );
    console.table(rows);
    console.log(
      `status of the whole 48-door cabinet (3 boards, 3 exchanges): ${(polls / POLL_SECONDS).toFixed(1)} polls/s, ${((polls * 3) / POLL_SECONDS).toFixed(0)} board exchanges/s`,
    );
  } finally {
    await board.close();
    await sim.close();
    cabinet.stop();
  }
}

await main();
process.exit(0);
