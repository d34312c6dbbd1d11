/**
 * Where the busiest hour's CPU goes: each stream of the mix alone, at a fraction of its rate
 * in the hour, on an otherwise quiet server, against a run with no requests at all (the
 * pollers, sweeps and caches that run anyway). A stream's CPU above that background, scaled
 * from the fraction to the whole hour, is the cores that stream needs; their sum and the
 * background's are what the whole hour needs on this code, whatever box it runs on.
 */
import type { Sql } from '../../src/db/connect';
import { Driver, type Stream } from './driver';
import { cpuSnapshot, waitForOutbox, type ServerProcess } from './processes';

export interface StreamCost {
  stream: string;
  /** Requests a second this stream makes in the whole hour (follow-ups included). */
  'req/s in the hour': number;
  'server ms/req': number;
  'postgres ms/req': number;
  'generator ms/req': number;
  /** Server and PostgreSQL cores the stream needs at the whole hour's rate. */
  'cores (server+pg)': number;
  /** The same with the load generator and sinks, as on this one box. */
  'cores (all)': number;
}

interface Spent {
  server: number;
  postgres: number;
  generator: number;
  seconds: number;
  answered: number;
  exhausted: string[];
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** CPU seconds spent while `streams` run for `seconds`, until what they queued is delivered. */
async function spend(
  sql: Sql,
  server: ServerProcess,
  streamsFor: (driver: Driver) => Stream[],
  seconds: number,
): Promise<Spent> {
  const driver = new Driver([new URL(server.url)]);
  const streams = streamsFor(driver);
  const since = new Date();
  const before = cpuSnapshot([server.pid]);
  const generator = process.cpuUsage();
  const started = performance.now();
  const result = await driver.run(streams, seconds);
  // The SMS and webhooks a stream causes are its cost too, however late they go out.
  await waitForOutbox(sql, since, 30_000);
  const after = cpuSnapshot([server.pid]);
  const used = process.cpuUsage(generator);
  driver.close();
  return {
    server: after.servers - before.servers,
    postgres: after.postgres - before.postgres,
    generator: (used.user + used.system) / 1e6,
    seconds: (performance.now() - started) / 1000,
    answered: result.recorder.figures().at(-1)!.answered,
    exhausted: result.exhausted,
  };
}

/**
 * Runs the background alone, then each stream alone at `fraction` of its hour rate; answers
 * a row per stream, one for the background, and the total for the whole hour (of the
 * streams run: `only` names some, for a change to one of them). `streamsAt`
 * makes the mix's streams at a fraction, their follow-ups scheduled on `driver`.
 */
export async function costBreakdown(
  sql: Sql,
  server: ServerProcess,
  streamsAt: (fraction: number, driver: Driver) => Stream[],
  fraction: number,
  seconds: number,
  settle: () => Promise<void>,
  only?: readonly string[],
): Promise<StreamCost[]> {
  await settle();
  const idle = await spend(sql, server, () => [], seconds);
  const background = {
    server: idle.server / idle.seconds,
    postgres: idle.postgres / idle.seconds,
    generator: idle.generator / idle.seconds,
  };
  const rows: StreamCost[] = [];
  const names = streamsAt(fraction, new Driver([]))
    .map((stream) => stream.name)
    .filter((name) => !only?.length || only.includes(name));
  for (const name of names) {
    await settle();
    const s = await spend(
      sql,
      server,
      (driver) => streamsAt(fraction, driver).filter((stream) => stream.name === name),
      seconds,
    );
    // A stream that ran out of seeded items sent less than its rate: its row would be low.
    if (s.exhausted.length)
      console.log(`breakdown: seeded items ran out for ${name}; its row is too low`);
    // Above the background, per request, and per second of the stream at the hour's rate.
    const server_ = Math.max(0, s.server - background.server * s.seconds);
    const postgres = Math.max(0, s.postgres - background.postgres * s.seconds);
    const generator = Math.max(0, s.generator - background.generator * s.seconds);
    const perRequest = (cpu: number) => (s.answered ? round((cpu / s.answered) * 1000, 2) : 0);
    const hourly = (cpu: number) => cpu / seconds / fraction;
    rows.push({
      stream: name,
      'req/s in the hour': round(s.answered / seconds / fraction, 0),
      'server ms/req': perRequest(server_),
      'postgres ms/req': perRequest(postgres),
      'generator ms/req': perRequest(generator),
      'cores (server+pg)': round(hourly(server_ + postgres), 2),
      'cores (all)': round(hourly(server_ + postgres + generator), 2),
    });
  }
  const sum = (key: 'cores (server+pg)' | 'cores (all)' | 'req/s in the hour') =>
    rows.reduce((total, r) => total + r[key], 0);
  const backgroundRow: StreamCost = {
    stream: 'background (no requests)',
    'req/s in the hour': 0,
    'server ms/req': 0,
    'postgres ms/req': 0,
    'generator ms/req': 0,
    'cores (server+pg)': round(background.server + background.postgres, 2),
    'cores (all)': round(background.server + background.postgres + background.generator, 2),
  };
  return [
    ...rows,
    backgroundRow,
    {
      stream: 'the whole hour',
      'req/s in the hour': round(sum('req/s in the hour'), 0),
      'server ms/req': 0,
      'postgres ms/req': 0,
      'generator ms/req': 0,
      'cores (server+pg)': round(sum('cores (server+pg)') + backgroundRow['cores (server+pg)'], 2),
      'cores (all)': round(sum('cores (all)') + backgroundRow['cores (all)'], 2),
    },
  ];
}
