/**
 * A national network's busiest hour on one box: merchants, couriers, customers and every
 * kiosk's polling at once, against one server instance (and two on one database), with
 * the SMS and webhook outboxes delivering to local sinks. Generator on the same machine.
 *
 *   pnpm --filter @locker/server exec tsx bench/peak-hour.ts
 *
 * Settings (environment): PEAK_SECONDS (60), PEAK_FRACTION of the Polish busiest hour (1),
 * PEAK_INSTANCES ("1"; "1,2" runs both), PEAK_SEARCH=1 (instead of one run per instance
 * count, search the highest fraction with every p99 < 100 ms and no errors,
 * PEAK_SEARCH_SECONDS per step, up to PEAK_SEARCH_CEILING),
 * PEAK_BREAKDOWN=1 (first, each stream alone at PEAK_BREAKDOWN_FRACTION (0.2) of its hour
 * rate for PEAK_BREAKDOWN_SECONDS (15), against the background: the cores each part of the
 * hour needs; PEAK_BREAKDOWN_STREAMS=heartbeat,… only those streams), PEAK_STREAMS=
 * 'hot deposit,deposit' (the runs and searches with those streams of the mix alone, to
 * look at one part of the hour: not a figure of the hour), PEAK_STATIONS
 * (28000), PEAK_PARCELS_PER_SECOND (233), PEAK_PG_PORT (55131; servers on the next two
 * ports, sinks on the two after), PEAK_STATEMENTS=1 (after each run, the statements that
 * cost PostgreSQL most), PEAK_SERVER_NODE_ARGS (Node flags for the servers, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`, or `--import
 * ./server/bench/peak/loopWatch.mjs` for the servers' event-loop stalls and long GCs), PEAK_LINK=1
 * (kiosks on the live link: the idle /cabinet poll every 300 s instead of 15 s, and one
 * poll after each change of the cabinet, as the link's hint brings; the link's WebSockets
 * themselves are not opened).
 * The servers reach PostgreSQL over its Unix-domain socket (PEAK_PG_TCP=1: loopback TCP).
 * PEAK_PG_SETTINGS: extra PostgreSQL settings for the run, PEAK_PG_LOG: a file for its log.
 * PEAK_CPUS: the parts pinned to CPUs before each run, e.g. `server=0 postgres=1
 * generator=1` (peak/processes.ts `pinParts`).
 */
import { BENCH_SECRET } from './harness';
import { costBreakdown } from './peak/breakdown';
import { Driver } from './peak/driver';
import { checkInvariants, type DepositAnswer } from './peak/invariants';
import { newCursors, peakCalls, peakStreams, type PeakCalls } from './peak/mix';
import {
  DEFAULT_SHARES,
  POLISH_PARCELS_PER_SECOND,
  POLISH_STATIONS,
  poolsFor,
  polishBusiestHour,
  scaled,
  totalRate,
  type Phase,
} from './peak/plan';
import {
  costliestStatements,
  cpuShares,
  cpuSnapshot,
  postgresPids,
  outboxLag,
  peakDatabase,
  pinParts,
  requestStatements,
  resetStatements,
  startServerProcess,
  waitForOutbox,
  type ServerProcess,
} from './peak/processes';
import { seedNetwork, type Network } from './peak/seed';
import { startSinks, type Sinks } from './peak/sinks';
import { nextFraction, sustained } from './peak/stats';
import type { Call } from './peak/driver';
import type { Sql } from '../src/db/connect';

const env = process.env;
const SECONDS = Number(env.PEAK_SECONDS ?? 60);
const FRACTION = Number(env.PEAK_FRACTION ?? 1);
const INSTANCES = (env.PEAK_INSTANCES ?? '1').split(',').map((n): 1 | 2 => (n === '2' ? 2 : 1));
const SEARCH = env.PEAK_SEARCH === '1';
const SEARCH_SECONDS = Number(env.PEAK_SEARCH_SECONDS ?? 20);
const SEARCH_CEILING = Number(env.PEAK_SEARCH_CEILING ?? 1.5);
const SEARCH_STEPS = 7;
const STATIONS = Number(env.PEAK_STATIONS ?? POLISH_STATIONS);
const PARCELS = Number(env.PEAK_PARCELS_PER_SECOND ?? POLISH_PARCELS_PER_SECOND);
const PG_PORT = Number(env.PEAK_PG_PORT ?? 55131);
const BREAKDOWN = env.PEAK_BREAKDOWN === '1';
const BREAKDOWN_FRACTION = Number(env.PEAK_BREAKDOWN_FRACTION ?? 0.2);
const BREAKDOWN_SECONDS = Number(env.PEAK_BREAKDOWN_SECONDS ?? 15);
const BREAKDOWN_STREAMS = (env.PEAK_BREAKDOWN_STREAMS ?? '').split(',').filter(Boolean);
const ONLY_STREAMS = (env.PEAK_STREAMS ?? '').split(',').filter(Boolean);
const STATEMENTS = env.PEAK_STATEMENTS === '1';
const P99_BOUND_MS = 100;
// The busiest hour follows a rising one: each run's rate rises from 0 over this long first,
// its answers shown but not judged (a server is not met cold by the hour's full rate).
const RAMP_SECONDS = Number(env.PEAK_RAMP_SECONDS ?? 10);
// Gentle enough that a loaded machine answers every poll; the point is a warm cache.
const WARM_UP_RATE = 1000;

const LINK = env.PEAK_LINK === '1';
const HOUR = polishBusiestHour(STATIONS, PARCELS, LINK);
const SHARES = DEFAULT_SHARES;

interface Context {
  sql: Sql;
  sqlUrl: string;
  net: Network;
  sinks: Sinks;
  servers: ServerProcess[];
  cursors: ReturnType<typeof newCursors>;
}

async function sendOnce(url: string, call: Call): Promise<{ status: number; body: string }> {
  const response = await fetch(url + call.path, {
    method: call.method,
    headers: call.headers,
    ...(call.body ? { body: call.body } : {}),
  });
  return { status: response.status, body: await response.text() };
}

/**
 * Round trips per request: each write path alone, sequentially, pg_stat_statements reset
 * before; background work (outbox delivery, sweeps) is left out of the count.
 */
async function roundTrips(ctx: Context, calls: PeakCalls) {
  const url = ctx.servers[0]!.url;
  const K = 20;
  const rows: { endpoint: string; 'statements/request': number; statuses: string }[] = [];
  const measure = async (endpoint: string, make: () => Call | undefined) => {
    await new Promise((r) => setTimeout(r, 300));
    await resetStatements(ctx.sql);
    const statuses = new Map<number, number>();
    const bodies: { call: Call; body: string }[] = [];
    for (let i = 0; i < K; i++) {
      const call = make();
      if (!call) break;
      const answer = await sendOnce(url, call);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      bodies.push({ call, body: answer.body });
    }
    await new Promise((r) => setTimeout(r, 300));
    const statements = await requestStatements(ctx.sql);
    const total = statements.reduce((sum, s) => sum + s.calls, 0);
    rows.push({
      endpoint,
      'statements/request': Math.round((total / K) * 10) / 10,
      statuses: [...statuses].map(([k, v]) => `${k}:${v}`).join(' '),
    });
    if (env.PEAK_VERBOSE) console.log(endpoint, statements);
    return bodies;
  };
  const stationOf = (call: Call) => call.headers.authorization!.slice('Bearer tdev_peak_'.length);
  await measure('POST /api/v1/shipments', calls.create);
  await measure('POST /courier/verify', calls.verify);
  await measure('POST /deposit', calls.ordinaryDeposit);
  const picked = await measure('POST /pickup', calls.pickup);
  const confirms = picked.map(({ call, body }) =>
    calls.confirm(stationOf(call), (JSON.parse(body) as { shipmentId: string }).shipmentId, 0),
  );
  await measure('POST /door/confirm', () => confirms.shift());
  await measure('POST /pickup (wrong code)', calls.wrongPickup);
  const started = await measure('POST /return', calls.startReturn);
  const returnConfirms = started.map(({ call, body }) =>
    calls.returnConfirm(stationOf(call), (JSON.parse(body) as { returnId: string }).returnId),
  );
  await measure('POST /return/confirm', () => returnConfirms.shift());
  await measure('POST /heartbeat', calls.heartbeat);
  console.log('\nDatabase statements (round trips) per request, each path alone:');
  console.table(rows);
}

async function ensureServers(ctx: Context, instances: number) {
  while (ctx.servers.length < instances) {
    ctx.servers.push(
      await startServerProcess(ctx.sqlUrl, PG_PORT + 1 + ctx.servers.length, {
        PICKUP_CODE_SECRET: BENCH_SECRET,
        SMS_TRANSPORT: 'twilio',
        TWILIO_ACCOUNT_SID: 'ACpeak',
        TWILIO_AUTH_TOKEN: 'peak',
        TWILIO_FROM: '+48000000000',
        TWILIO_BASE_URL: ctx.sinks.smsUrl,
        // The dominant marketplace sends ~120 requests/s; its contract allows it.
        MERCHANT_REQUESTS_PER_MINUTE: '100000',
      }),
    );
    await warmUp(ctx, ctx.servers.at(-1)!);
  }
}

/**
 * Steady state means every kiosk has been seen: one /cabinet per station first, so the
 * instance's authentication cache holds the fleet, as it does after a minute in service,
 * and each kiosk holds its offline pickup set's ETag, as it does after 15 s, and its
 * deposit set's, as it does after a minute (without them, a run's deposit set reads were
 * nearly all whole sets, where kiosks in service get 304 unless the set changed).
 */
async function warmUp(ctx: Context, server: ServerProcess) {
  const driver = new Driver([new URL(server.url)]);
  let i = 0;
  const codes = [...ctx.net.etags.keys()];
  const offlineSets = [
    { path: '/terminal/v1/offline/pickups', etags: ctx.net.pickupSetEtags },
    { path: '/terminal/v1/offline/deposits', etags: ctx.net.depositSetEtags },
  ];
  const polls = 1 + offlineSets.length;
  const started = performance.now();
  await driver.run(
    [
      {
        name: 'warm-up',
        rate: WARM_UP_RATE,
        next: () => {
          const n = i++;
          const code = codes[Math.floor(n / polls)];
          if (!code) return undefined;
          const headers = { authorization: `Bearer tdev_peak_${code}` };
          const set = offlineSets[(n % polls) - 1];
          if (!set)
            return {
              endpoint: 'warm-up',
              method: 'GET',
              path: '/terminal/v1/cabinet',
              headers,
              expect: [200],
            };
          const etag = set.etags.get(code);
          return {
            endpoint: 'warm-up',
            method: 'GET',
            path: set.path,
            headers: { ...headers, ...(etag ? { 'if-none-match': etag } : {}) },
            expect: [200, 304],
            then: (_status, answer) => {
              if (typeof answer.etag === 'string') set.etags.set(code, answer.etag);
            },
          };
        },
      },
    ],
    (polls * codes.length) / WARM_UP_RATE + 1,
    // Every poll answered before anything is measured, however slow the machine is today.
    { drainSeconds: 600 },
  );
  driver.close();
  const figures = driver.recorder.figures()[0]!;
  console.log(
    `warm-up of ${server.url}: ${figures.answered} of ${polls * codes.length} polls answered (each kiosk's grid and offline sets; ${figures.errors} errors, ${figures.statuses}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

/**
 * Waits (up to a minute) until every instance answers a request that needs no database
 * at once: requests a failed phase left queued must not be counted against the next one.
 */
async function settle(servers: ServerProcess[]) {
  const deadline = Date.now() + 60_000;
  for (let quick = 0; quick < 3 && Date.now() < deadline;) {
    const started = performance.now();
    await Promise.all(servers.map((s) => fetch(`${s.url}/terminal/v1/cabinet`).catch(() => {})));
    quick = performance.now() - started < 50 ? quick + 1 : 0;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function runPhase(ctx: Context, phase: Phase) {
  await ensureServers(ctx, phase.instances);
  const servers = ctx.servers.slice(0, phase.instances);
  await settle(servers);
  const rates = scaled(HOUR, phase.fraction);
  const driver = new Driver(servers.map((s) => new URL(s.url)));
  const deposits: DepositAnswer[] = [];
  const calls = peakCalls(ctx.net, rates, SHARES, ctx.cursors, driver, deposits);
  const smsBefore = ctx.sinks.smsTrackingNumbers.length;
  const hooksBefore = ctx.sinks.webhookEvents;
  const duplicatesBefore = ctx.sinks.webhookDuplicates;
  const since = new Date();
  if (STATEMENTS) await resetStatements(ctx.sql);
  const pids = servers.map((s) => s.pid);
  if (process.env.PEAK_CPUS) console.log(`pinned: ${pinParts(process.env.PEAK_CPUS, pids)}`);
  // Found once, before the run: the measured part's first turn then reads a few files.
  const pgPids = postgresPids();
  let before = cpuSnapshot(pids, pgPids);
  const ramp = phase.rampSeconds ?? 0;
  if (ramp) console.log(`\n${phase.name}: the rate rises from 0 over ${ramp} s first`);
  const streams = peakStreams(calls, rates, SHARES).filter(
    (s) => ONLY_STREAMS.length === 0 || ONLY_STREAMS.includes(s.name),
  );
  const result = await driver.run(streams, phase.seconds, {
    rampSeconds: ramp,
    onMeasureStart: () => {
      before = cpuSnapshot(pids, pgPids);
      // The clock time of the run's second 0, to line its slow seconds up with logs.
      console.log(`\n${phase.name} starts at ${new Date().toISOString()}`);
    },
  });
  // Judged on the deposits answered within the run: on an overloaded machine answers keep
  // arriving later, and one arriving during the check is not yet in the rows it read.
  const answeredDeposits = deposits.slice();
  const after = cpuSnapshot(pids);
  driver.close();
  const figures = result.recorder.figures();
  const rampFigures = result.ramp.figures().at(-1);
  const cpu = cpuShares(
    before,
    after,
    result.seconds,
    result.cpuSeconds,
    figures.at(-1)!.answered,
    totalRate(HOUR),
  );
  const undelivered = await waitForOutbox(ctx.sql, since, 30_000);
  const lag = await outboxLag(ctx.sql, since);
  const invariants = await checkInvariants(
    ctx.sql,
    answeredDeposits,
    ctx.sinks.smsTrackingNumbers.slice(smsBefore),
  );
  const held = sustained(figures, P99_BOUND_MS) && result.exhausted.length === 0;
  console.log(
    `\n${phase.name}: ${phase.fraction} × the Polish busiest hour ` +
      `(${Math.round(totalRate(rates))} req/s planned), ${phase.instances} instance(s), ` +
      `${phase.seconds} s; ${held ? 'HELD' : 'did NOT hold'} (every endpoint p99 < ${P99_BOUND_MS} ms, no errors)`,
  );
  if (ramp && rampFigures)
    console.log(
      `the ${ramp} s ramp before it (not judged): ${rampFigures.answered} of ${rampFigures.sent} answered, ` +
        `${rampFigures.errors} errors, p50 ${rampFigures['p50 ms']} / p99 ${rampFigures['p99 ms']} / max ${rampFigures['max ms']} ms`,
    );
  console.table(figures);
  console.log('outbox lag (created → delivered, the ramp included):');
  console.table(lag);
  if (undelivered) console.log(`${undelivered} messages still undelivered 30 s after the run`);
  console.log(
    `webhooks received ${ctx.sinks.webhookEvents - hooksBefore} ` +
      `(duplicates ${ctx.sinks.webhookDuplicates - duplicatesBefore})`,
  );
  console.log('invariants:', invariants);
  console.log('CPU (share of the machine):', cpu);
  console.log(
    `generator's event loop late by p99 ${result.loopDelay.p99.toFixed(1)} ms, ` +
      `max ${result.loopDelay.max.toFixed(1)} ms (a stall there shows as every endpoint's latency)`,
  );
  if (driver.slow.length) {
    // When the slow answers were scheduled, by second: a burst at one moment is a stall
    // of something every request shares; spread out, it is queueing.
    const bySecond = new Map<number, number>();
    for (const s of driver.slow)
      bySecond.set(Math.floor(s.at / 1000), (bySecond.get(Math.floor(s.at / 1000)) ?? 0) + 1);
    const worst = [...bySecond].sort((a, b) => b[1] - a[1])[0]![0];
    const there = new Map<string, number>();
    for (const s of driver.slow.filter((s) => Math.floor(s.at / 1000) === worst))
      there.set(s.endpoint, (there.get(s.endpoint) ?? 0) + 1);
    console.log(`  at ${worst}s: ${[...there].map(([e, n]) => `${e} ×${n}`).join(', ')}`);
    if (env.PEAK_SLOW_LIST === '1')
      for (const s of driver.slow
        .filter((s) => Math.floor(s.at / 1000) === worst)
        .sort((a, b) => a.at - b.at))
        console.log(`    ${s.at.toFixed(0)} ms ${s.endpoint} ${s.ms.toFixed(0)} ms`);
    console.log(
      `answers over 100 ms by second of the run: ${[...bySecond]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}s:${n}`)
        .join(' ')}`,
    );
  }
  if (STATEMENTS) {
    console.log('costliest statements of the run (the ramp and outbox delivery included):');
    console.table(await costliestStatements(ctx.sql));
  }
  if (result.exhausted.length)
    console.log(`seeded pools ran out for: ${result.exhausted.join(', ')}`);
  return held;
}

/** The cores each stream of the hour needs, and the whole hour's sum (peak/breakdown.ts). */
async function breakdown(ctx: Context) {
  const server = ctx.servers[0]!;
  const rows = await costBreakdown(
    ctx.sql,
    server,
    (fraction, driver) => {
      const rates = scaled(HOUR, fraction);
      return peakStreams(peakCalls(ctx.net, rates, SHARES, ctx.cursors, driver, []), rates, SHARES);
    },
    BREAKDOWN_FRACTION,
    BREAKDOWN_SECONDS,
    () => settle([server]),
    BREAKDOWN_STREAMS,
  );
  console.log(
    `\nCPU of each stream alone at ${BREAKDOWN_FRACTION} of its rate in the hour, ` +
      `${BREAKDOWN_SECONDS} s each, above the background; scaled to the whole hour:`,
  );
  console.table(rows);
}

/** Bisects for the highest fraction of the hour `instances` sustain; answers it. */
async function search(ctx: Context, instances: 1 | 2): Promise<number> {
  const tried: { fraction: number; held: boolean }[] = [];
  for (
    let f = nextFraction([], SEARCH_CEILING);
    f !== undefined && tried.length < SEARCH_STEPS;
    f = nextFraction(tried, SEARCH_CEILING)
  ) {
    const held = await runPhase(ctx, {
      name: `search on ${instances} instance(s), step ${tried.length + 1}`,
      fraction: f,
      seconds: SEARCH_SECONDS,
      rampSeconds: RAMP_SECONDS,
      instances,
    });
    tried.push({ fraction: f, held });
  }
  const best = Math.max(0, ...tried.filter((t) => t.held).map((t) => t.fraction));
  console.log(
    `\nsearch on ${instances} instance(s): highest fraction held = ${best} of the Polish ` +
      `busiest hour (${tried.map((t) => `${t.fraction}:${t.held ? 'held' : 'no'}`).join(', ')})`,
  );
  return best;
}

async function main() {
  // Pools for the worst case: every search step at the ceiling, then the fixed runs.
  const phases: Phase[] = INSTANCES.flatMap((instances) => [
    ...Array.from({ length: SEARCH ? SEARCH_STEPS : 0 }, () => ({
      name: 'search',
      fraction: SEARCH_CEILING,
      seconds: SEARCH_SECONDS,
      rampSeconds: RAMP_SECONDS,
      instances,
    })),
    ...(SEARCH
      ? []
      : [
          {
            name: 'run',
            fraction: FRACTION,
            seconds: SECONDS,
            rampSeconds: RAMP_SECONDS,
            instances,
          },
        ]),
  ]);
  // Each stream once, alone: together what one phase of every stream at that fraction takes.
  if (BREAKDOWN)
    phases.push({
      name: 'breakdown',
      fraction: BREAKDOWN_FRACTION,
      seconds: BREAKDOWN_SECONDS,
      instances: 1,
    });
  const pools = poolsFor(HOUR, SHARES, phases);

  const db = await peakDatabase(PG_PORT, 'locker_peak');
  const sinks = await startSinks(PG_PORT + 3, PG_PORT + 4);
  const started = Date.now();
  const net = await seedNetwork(db.sql, STATIONS, pools, BENCH_SECRET, sinks.webhookUrl);
  console.log(
    `seeded ${STATIONS} stations × 48 doors (+${pools.hotStations} hot), ${pools.booked + pools.hotBooked} parcels to deposit, ` +
      `${pools.pickups} known codes in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  const ctx: Context = {
    sql: db.sql,
    sqlUrl: db.url,
    net,
    sinks,
    servers: [],
    cursors: newCursors(),
  };
  // Stopped by a signal: leave no server or PostgreSQL of this run behind.
  const cleanUp = async () => {
    for (const s of ctx.servers) await s.stop();
    await sinks.close();
    await db.stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void cleanUp().finally(() => process.exit(1)));
  try {
    await ensureServers(ctx, 1);
    await roundTrips(
      ctx,
      peakCalls(net, HOUR, SHARES, ctx.cursors, new Driver([new URL(ctx.servers[0]!.url)]), []),
    );
    if (BREAKDOWN) await breakdown(ctx);
    const held = new Map<number, number>();
    for (const instances of INSTANCES) {
      if (SEARCH) held.set(instances, await search(ctx, instances));
      else
        await runPhase(ctx, {
          name: `run on ${instances} instance(s)`,
          fraction: FRACTION,
          seconds: SECONDS,
          rampSeconds: RAMP_SECONDS,
          instances,
        });
    }
    if (held.size)
      console.log(
        `\nhighest fraction of the Polish busiest hour held (p99 < ${P99_BOUND_MS} ms, no errors): ` +
          [...held].map(([n, f]) => `${n} instance(s) ${f}`).join(', '),
      );
  } finally {
    await cleanUp();
  }
}

await main();
process.exit(0);
