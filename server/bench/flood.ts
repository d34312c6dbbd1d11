/**
 * One device token flooding `/pickup` with wrong codes while other terminals go about
 * their business: what the attacker gets, what everyone else pays, and how much work the
 * limiter does per attempt (rows it keeps, rows it reads).
 *
 *   BENCH_SECONDS=30 pnpm --filter @locker/server exec tsx bench/flood.ts
 */
import { createStation, createTerminal } from '../src/admin/commands';
import { bearer, benchDatabase, benchServer, load, paced, pick, SECONDS } from './harness';

const VICTIMS = 1000;

async function main() {
  const db = await benchDatabase('locker_bench_flood');
  const { sql } = db;
  const station = await createStation(sql, { code: 'FLOOD', name: 'Flood', doors: '1:S,2:M' });
  const attacker = await createTerminal(sql, station.code);
  const victims: string[] = [];
  for (let i = 0; i < VICTIMS; i++) victims.push((await createTerminal(sql, station.code)).token);
  const server = await benchServer(db.url);
  try {
    const wrongCode = JSON.stringify({ code: '00000001' });
    // Each victim stays far inside its own 10 per minute: ~2 attempts per run.
    const victimLoad = () =>
      paced('others /pickup while flooded (20 req/s)', server.url, 20, () => ({
        method: 'POST',
        path: '/terminal/v1/pickup',
        headers: bearer(pick(victims)),
        body: wrongCode,
      }));
    const quiet = await victimLoad();
    const [flood, others] = await Promise.all([
      load('attacker /pickup flood (8 connections)', server.url, { connections: 8 }, [
        {
          method: 'POST',
          path: '/terminal/v1/pickup',
          headers: bearer(attacker.token),
          body: wrongCode,
        },
      ]),
      victimLoad(),
    ]);
    console.table([{ ...quiet, run: 'others /pickup, no flood (20 req/s)' }, flood, others]);
    // The limiter's state for the attacker: what each of its attempts has to read.
    const kept = await limiterRowsOf(sql, attacker.id);
    console.log(`limiter state kept for the attacker after ${SECONDS} s: ${kept}`);
  } finally {
    await server.stop();
    await db.stop();
  }
}

async function limiterRowsOf(sql: Awaited<ReturnType<typeof benchDatabase>>['sql'], id: string) {
  const [table] = await sql<{ name: string | null }[]>`
    select coalesce(to_regclass('rate_limit_windows')::text, to_regclass('rate_limit_hits')::text) as name`;
  if (table?.name === 'rate_limit_windows') {
    const [row] = await sql<{ n: number }[]>`
      select coalesce(sum(cardinality(attempts)), 0)::int as n
        from rate_limit_windows where subject = ${id}`;
    return `${row?.n ?? 0} timestamps (fixed size, whatever the flood)`;
  }
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from rate_limit_hits
     where terminal_id = ${id} and at > now() - interval '60 seconds'`;
  return `${row?.n ?? 0} rows in the last 60 s (each attempt reads them all)`;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
