import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import { localSocketUrl, type Sql } from '../../src/db/connect';
import { ensureEmbeddedPostgres } from '../../src/db/embedded';
import { freshDatabase } from '../database';

export const DATA_DIR = path.join(REPO_ROOT, '.data/bench-peak-postgres');

const appendTo = (file: string) => (chunk: Buffer) => appendFileSync(file, chunk);

/** The benchmark's own PostgreSQL, with pg_stat_statements to count round trips. */
export async function peakDatabase(port: number, name: string) {
  const embedded = await ensureEmbeddedPostgres({
    dataDir: DATA_DIR,
    port,
    // Production-like: durable commits, a buffer cache that holds the network.
    settings: [
      'shared_buffers=1GB',
      'max_wal_size=4GB',
      'shared_preload_libraries=pg_stat_statements',
      'pg_stat_statements.track=top',
      'pg_stat_statements.max=10000',
      // PEAK_PG_SETTINGS: more, space-separated, e.g. what to log (into PEAK_PG_LOG) to
      // line a stall up with: `log_checkpoints=on log_autovacuum_min_duration=0
      // log_lock_waits=on deadlock_timeout=50ms log_line_prefix=%m|%p|`.
      ...(process.env.PEAK_PG_SETTINGS ?? '').split(' ').filter(Boolean),
    ],
    ...(process.env.PEAK_PG_LOG ? { onLog: appendTo(process.env.PEAK_PG_LOG) } : {}),
  });
  const { url, sql } = await freshDatabase(embedded.url, name);
  await sql`create extension if not exists pg_stat_statements`;
  return { url, sql, stop: async () => (await sql.end(), await embedded.stop()) };
}

export interface ServerProcess {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

/** The real entry point in a child process, as production runs it. */
export async function startServerProcess(
  databaseUrl: string,
  port: number,
  env: Record<string, string>,
): Promise<ServerProcess> {
  // PEAK_SERVER_NODE_ARGS: extra Node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=…`.
  const nodeArgs = (process.env.PEAK_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const args = [...nodeArgs, '--import', 'tsx', 'server/src/main.ts'];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      // Over the cluster's Unix-domain socket, as the server reaches its embedded one;
      // PEAK_PG_TCP=1: over loopback TCP, as a DATABASE_URL naming 127.0.0.1 would.
      DATABASE_URL:
        process.env.PEAK_PG_TCP === '1'
          ? databaseUrl
          : (localSocketUrl(databaseUrl) ?? databaseUrl),
      PORT: String(port),
      HOST: '127.0.0.1',
      // PEAK_LOG_LEVEL=info: a line per request, as production logs (into the bench's
      // standard output: pipe it, as into journald, to count the writes' wake-ups).
      LOG_LEVEL: process.env.PEAK_LOG_LEVEL ?? 'warn',
      // Kiosks picked at random may go minutes without a heartbeat; none goes offline.
      OFFLINE_AFTER_SECONDS: '86400',
      // The benches' webhook receivers listen on this machine.
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) break;
    const up = await fetch(`${url}/terminal/v1/cabinet`).then(
      () => true,
      () => false,
    );
    if (up)
      return {
        url,
        pid: child.pid!,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      };
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`server on port ${port} did not start`);
}

const TICKS = 100; // USER_HZ on Linux

/** CPU seconds a process and (optionally) its children have used so far. */
function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

function childrenOf(parent: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(fields[1]) === parent) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function postmasterPid(): number {
  return Number(readFileSync(path.join(DATA_DIR, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

function machineJiffies(): { busy: number; total: number } {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const n = values.map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  const idle = n[3]! + n[4]!;
  return { busy: total - idle, total };
}

/** PostgreSQL's processes now: the postmaster and its children. */
export function postgresPids(): number[] {
  const pg = postmasterPid();
  return [pg, ...childrenOf(pg)];
}

/**
 * PEAK_CPUS, e.g. `server=0 postgres=1 generator=1`: every thread of each part pinned to
 * those CPUs (`taskset`) before a run; PostgreSQL's postmaster too, so the backends it
 * forks later inherit them. A part not named keeps every CPU. To see what the server and
 * PostgreSQL cost each other on shared cores (README, the eighteenth round).
 */
export function pinParts(spec: string, serverPids: number[]): string {
  const parts: Record<string, () => number[]> = {
    server: () => serverPids,
    postgres: postgresPids,
    generator: () => [process.pid],
  };
  const entries = spec
    .split(' ')
    .filter(Boolean)
    .map((entry) => {
      const [part, cpus] = entry.split('=');
      const pids = parts[part ?? ''];
      if (!pids || !cpus || !/^\d+([,-]\d+)*$/.test(cpus))
        throw new Error(`PEAK_CPUS: "${entry}" is not server=, postgres= or generator= CPUs`);
      return { part, cpus, pids };
    });
  return entries
    .map(({ part, cpus, pids }) => {
      const found = pids();
      for (const pid of found) execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)]);
      return `${part} on CPU ${cpus} (${found.length} process${found.length === 1 ? '' : 'es'})`;
    })
    .join(', ');
}

/**
 * Snapshot of CPU counters, to be diffed over a run. `pgPids`: PostgreSQL's processes
 * found beforehand, where the snapshot must not take a scan of every process in /proc
 * (the start of a run's measured part).
 */
export function cpuSnapshot(serverPids: number[], pgPids: number[] = postgresPids()) {
  return {
    servers: serverPids.reduce((sum, pid) => sum + cpuOf(pid), 0),
    postgres: pgPids.reduce((sum, pid) => sum + cpuOf(pid), 0),
    machine: machineJiffies(),
  };
}

export type CpuSnapshot = ReturnType<typeof cpuSnapshot>;

/** Shares of the machine's two cores over `seconds`, in percent of the whole machine. */
export function cpuShares(
  before: CpuSnapshot,
  after: CpuSnapshot,
  seconds: number,
  generatorCpuSeconds: number,
  answered: number,
  hourRequests: number,
) {
  const cores = os.cpus().length;
  const pct = (cpuSeconds: number) => Math.round((cpuSeconds / (seconds * cores)) * 1000) / 10;
  const machine =
    (after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total);
  return {
    'generator+sinks %': pct(generatorCpuSeconds),
    'server(s) %': pct(after.servers - before.servers),
    'postgres %': pct(after.postgres - before.postgres),
    'machine busy %': Math.round(machine * 1000) / 10,
    'load avg (1 min)': Math.round(os.loadavg()[0]! * 100) / 100,
    // CPU time is what a shared machine distorts least: per answered request, and the
    // cores the whole hour (`hourRequests`/s) would need at that cost, generator aside.
    'server CPU ms/request': perRequest(after.servers - before.servers, answered),
    'postgres CPU ms/request': perRequest(after.postgres - before.postgres, answered),
    'cores for the whole hour (server + postgres)':
      Math.round(
        ((after.servers - before.servers + after.postgres - before.postgres) / answered) *
          hourRequests *
          100,
      ) / 100,
  };
}

const perRequest = (cpuSeconds: number, answered: number) =>
  answered ? Math.round((cpuSeconds / answered) * 1e5) / 100 : 0;

/** Statements of background work (outbox delivery, sweeps), not of the request itself. */
const BACKGROUND = [
  /update outbox/i,
  /from outbox/i,
  // The webhook channel's read of a batch's endpoints and bodies (webhooks/channel.ts).
  /join webhook_endpoints w on w\.id = x\.endpoint_id/i,
  /insert into alerts/i,
  /status = 'offline'/i,
  /delete from (rate_limit_hits|rate_limit_windows|merchant_rate_windows|idempotency_keys)\s+where (at|window_start|created_at|attempts\[cardinality\(attempts\)\]) </i,
  // The storage sweep (notices/storage.ts), every 15 s; its begin and commit still count.
  /as hours_left/i,
  /pg_stat_statements|^\s*(listen|unlisten)\b/i,
];

export function isBackground(query: string): boolean {
  return BACKGROUND.some((re) => re.test(query));
}

export async function resetStatements(sql: Sql): Promise<void> {
  await sql`select pg_stat_statements_reset()`;
}

/** Statements executed for requests since the last reset (background work excluded). */
export async function requestStatements(sql: Sql): Promise<{ calls: number; query: string }[]> {
  const rows = await sql<{ calls: string; query: string }[]>`
    select calls::text, query from pg_stat_statements
     where dbid = (select oid from pg_database where datname = current_database())`;
  const counted = rows
    .filter((r) => !isBackground(r.query))
    .map((r) => ({ calls: Number(r.calls), query: r.query.replace(/\s+/g, ' ').slice(0, 110) }));
  // pg_stat_statements misses most COMMITs here; every transaction has one round trip each way.
  const calls = (q: string) => counted.find((r) => r.query.toLowerCase() === q)?.calls ?? 0;
  const missing = calls('begin') - calls('commit');
  if (missing > 0) counted.push({ calls: missing, query: 'commit (not recorded, one per begin)' });
  return counted;
}

/** The statements that cost PostgreSQL most since the last reset (PEAK_STATEMENTS=1). */
export async function costliestStatements(sql: Sql, limit = 15) {
  const rows = await sql<
    { calls: string; total_ms: string; mean_ms: string; max_ms: string; query: string }[]
  >`
    select calls::text, round(total_exec_time::numeric)::text as total_ms,
           round(mean_exec_time::numeric, 3)::text as mean_ms,
           round(max_exec_time::numeric, 1)::text as max_ms, query
      from pg_stat_statements
     where dbid = (select oid from pg_database where datname = current_database())
     order by total_exec_time desc limit ${limit}`;
  return rows.map((r) => ({
    calls: Number(r.calls),
    'total ms': Number(r.total_ms),
    'mean ms': Number(r.mean_ms),
    // A statement's longest run: lock waits included; one far above its mean is a stall.
    'max ms': Number(r.max_ms),
    query: r.query.replace(/\s+/g, ' ').slice(0, 120),
  }));
}

/** SMS and webhook outbox lag (created → delivered) for messages created since `since`. */
export async function outboxLag(sql: Sql, since: Date) {
  return sql<
    {
      channel: string;
      queued: number;
      delivered: number;
      'p50 ms': number;
      'p99 ms': number;
      'max ms': number;
    }[]
  >`
    select channel, count(*)::int as queued, count(delivered_at)::int as delivered,
           round(percentile_cont(0.5) within group (order by extract(epoch from delivered_at - created_at) * 1000))::int as "p50 ms",
           round(percentile_cont(0.99) within group (order by extract(epoch from delivered_at - created_at) * 1000))::int as "p99 ms",
           round(max(extract(epoch from delivered_at - created_at) * 1000))::int as "max ms"
      from outbox where created_at >= ${since}
     group by channel order by channel`;
}

/** Waits (up to `ms`) until everything queued since `since` was delivered. */
export async function waitForOutbox(sql: Sql, since: Date, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const [row] = await sql<{ n: number }[]>`
      select count(*)::int as n from outbox
       where created_at >= ${since} and delivered_at is null and failed_at is null`;
    if (!row?.n || Date.now() > deadline) return row?.n ?? 0;
    await new Promise((r) => setTimeout(r, 250));
  }
}
