/**
 * The verifier worker's rate on this machine (issue 28): how many offline pickup verifiers
 * (scrypt N = 2^14, r = 8, p = 1) one worker thread makes a second, and two at once, with
 * the CPU each costs; and what the deposit now spends instead (sealing the code for the
 * worker). The figure docs/decisions.md ("A locker on its own") quotes.
 *
 *   pnpm --filter @locker/server exec tsx bench/verifiers.ts
 *
 * Settings (environment): VERIFIER_BENCH_SECONDS (10) per measurement.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { makeVerifier, stationVerifierSalt } from '@locker/shared/verifier';
import { openForVerifier, sealForVerifier } from '../src/terminal/verifierSeal';

const SECONDS = Number(process.env.VERIFIER_BENCH_SECONDS ?? 10);
const SECRET = 'bench-pickup-code-secret';
const salt = stationVerifierSalt(SECRET, randomUUID());
const code = () => String(randomInt(0, 1e8)).padStart(8, '0');

/** Verifiers made by `threads` loops side by side for SECONDS: rate and CPU per verifier. */
async function rate(threads: number) {
  const until = performance.now() + SECONDS * 1000;
  const cpu = process.cpuUsage();
  const started = performance.now();
  let made = 0;
  await Promise.all(
    Array.from({ length: threads }, async () => {
      while (performance.now() < until) {
        await makeVerifier(code(), salt);
        made++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    threads,
    'verifiers/s': Math.round((made / elapsed) * 10) / 10,
    'ms per verifier (wall, per thread)': Math.round(((elapsed * 1000 * threads) / made) * 10) / 10,
    'CPU ms per verifier': Math.round(((used.user + used.system) / 1000 / made) * 10) / 10,
  };
}

function sealCost() {
  const id = randomUUID();
  const n = 20_000;
  const started = performance.now();
  for (let i = 0; i < n; i++) openForVerifier(SECRET, id, sealForVerifier(SECRET, id, code()));
  return Math.round(((performance.now() - started) * 1000) / n) / 1000;
}

await makeVerifier(code(), salt); // warm
const rows = [await rate(1), await rate(2)];
console.log(`offline verifiers, ${SECONDS} s each, load average ${loadavg()[0]!.toFixed(1)}:`);
console.table(rows);
console.log(`seal + open of a code for the worker: ${sealCost()} ms`);
