import autocannon, { type Request } from 'autocannon';
import net from 'node:net';
import { startServerProcess } from './peak/processes';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
export const BENCH_SECRET = 'bench-pickup-secret';
// In bench/database.ts, where the kiosk's benchmark finds it too (the server's testing entry).
export { benchDatabase } from './database';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The real server entry point in a child process: one instance, as in production. */
export async function benchServer(databaseUrl: string, env: Record<string, string> = {}) {
  return startServerProcess(databaseUrl, await freePort(), {
    PICKUP_CODE_SECRET: BENCH_SECRET,
    SMS_TRANSPORT: 'file:/dev/null',
    ...env,
  });
}

export interface Figures {
  run: string;
  'req/s': number;
  'p50 ms': number;
  'p99 ms': number;
  'max ms': number;
  statuses: string;
}

/** One autocannon run: timed (SECONDS), or a fixed number of requests with `amount`. */
export async function load(
  run: string,
  url: string,
  options: Partial<autocannon.Options>,
  requests: Request[],
): Promise<Figures> {
  const length = options.amount ? {} : { duration: SECONDS };
  const result = await autocannon({ url, connections: 64, ...length, requests, ...options });
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .map(([code, s]) => `${code}:${(s as { count: number }).count}`)
    .join(' ');
  const failures =
    (result.errors ? ` errors:${result.errors}` : '') +
    (result.timeouts ? ` timeouts:${result.timeouts}` : '');
  return {
    run,
    'req/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    'max ms': result.latency.max,
    statuses: statuses + failures,
  };
}

export const bearer = (token: string) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
});
export const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)]!;

export interface PacedRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
    : 0;
}

/**
 * Open-loop load at a steady `rate`: each millisecond sends what the schedule owes, and
 * latency counts from a request's scheduled time, so a stalled generator or server shows
 * as latency instead of as fewer requests (no coordinated omission). autocannon's rate
 * option sends each second's quota in a burst, which measures its bursts, not the server.
 */
export async function paced(
  run: string,
  url: string,
  rate: number,
  next: () => PacedRequest,
): Promise<Figures> {
  const { default: http } = await import('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const target = new URL(url);
  const latencies: number[] = [];
  const statuses = new Map<string, number>();
  const start = performance.now();
  const end = start + SECONDS * 1000;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  const send = (scheduled: number) => {
    const r = next();
    const done = new Promise<void>((resolve) => {
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          method: r.method,
          path: r.path,
          headers: r.headers,
          agent,
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - scheduled);
            statuses.set(String(res.statusCode), (statuses.get(String(res.statusCode)) ?? 0) + 1);
            resolve();
          });
        },
      );
      req.on('error', () => {
        statuses.set('error', (statuses.get('error') ?? 0) + 1);
        resolve();
      });
      req.end(r.body);
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  };
  while (performance.now() < end) {
    const owed = Math.floor(((performance.now() - start) / 1000) * rate);
    while (sent < owed) send(start + (sent++ * 1000) / rate);
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(inFlight);
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    run,
    'req/s': Math.round(sorted.length / SECONDS),
    'p50 ms': Math.round(percentile(sorted, 50) * 10) / 10,
    'p99 ms': Math.round(percentile(sorted, 99) * 10) / 10,
    'max ms': Math.round((sorted.at(-1) ?? 0) * 10) / 10,
    statuses: [...statuses].map(([k, v]) => `${k}:${v}`).join(' '),
  };
}
