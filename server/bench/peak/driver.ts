import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Recorder } from './stats';

export interface Call {
  endpoint: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Statuses this request may get without it counting as an error. */
  expect: number[];
  /** Sees the answer (body read only when this is set): follow-ups start here. */
  then?: (status: number, headers: http.IncomingHttpHeaders, body: string) => void;
}

/** A paced stream: `next` is called `rate` times a second; it may answer a burst. */
export interface Stream {
  name: string;
  rate: number;
  next: () => Call | Call[] | undefined;
}

export interface RunResult {
  recorder: Recorder;
  seconds: number;
  /** CPU seconds this process (generator and sinks) used during the run. */
  cpuSeconds: number;
  /** Streams that ran out of seeded items before the end. */
  exhausted: string[];
  /** How late this process's event loop ran (ms): a stall here is not the server's. */
  loopDelay: { p99: number; max: number };
}

/** How many requests a stream of `rate` per second owes `elapsedMs` after its start. */
export function owedBy(elapsedMs: number, rate: number): number {
  return Math.floor((elapsedMs / 1000) * rate);
}

/**
 * When the `n`-th request (from 1) of a stream of `rate` per second is due: the moment
 * `owedBy` first counts it. (Counting from the (n-1)-th's time instead charged every
 * request one interval between requests it never waited: 4 s for a stream of 0.25/s.)
 */
export function scheduledAt(n: number, rate: number): number {
  return (n * 1000) / rate;
}

/**
 * Open-loop load: each millisecond sends what every stream's schedule owes, and latency
 * counts from a request's scheduled time, so a stalled generator or server shows as
 * latency, not as fewer requests (no coordinated omission). Follow-ups (a label after a
 * create, a confirm after a pickup) are scheduled from the answer, after their delay.
 */
export class Driver {
  readonly recorder = new Recorder();
  private readonly agents: http.Agent[];
  private readonly later: { at: number; call: Call }[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private next = 0;
  /** Answers slower than 100 ms: when they were scheduled (ms into the run), what, how slow. */
  readonly slow: { at: number; endpoint: string; ms: number }[] = [];
  private startedAt = 0;

  constructor(private readonly targets: URL[]) {
    this.agents = targets.map(() => new http.Agent({ keepAlive: true, maxSockets: 2048 }));
  }

  /** Sends `call` `delayMs` from now, latency counted from then. */
  after(delayMs: number, call: Call): void {
    this.later.push({ at: performance.now() + delayMs, call });
  }

  private send(call: Call, scheduled: number): void {
    // Round robin over the instances, as a load balancer would spread requests.
    const i = this.next++ % this.targets.length;
    const target = this.targets[i]!;
    this.recorder.sent(call.endpoint);
    const done = new Promise<void>((resolve) => {
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          method: call.method,
          path: call.path,
          headers: call.headers,
          agent: this.agents[i],
        },
        (res) => {
          const chunks: Buffer[] = [];
          if (call.then) res.on('data', (c: Buffer) => chunks.push(c));
          else res.resume();
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const ms = performance.now() - scheduled;
            this.recorder.answered(call.endpoint, status, ms, call.expect.includes(status));
            if (ms > 100)
              this.slow.push({ at: scheduled - this.startedAt, endpoint: call.endpoint, ms });
            try {
              call.then?.(status, res.headers, Buffer.concat(chunks).toString('utf8'));
            } finally {
              resolve();
            }
          });
        },
      );
      req.on('error', (error) => {
        this.recorder.failed(call.endpoint, `error(${(error as NodeJS.ErrnoException).code})`);
        resolve();
      });
      req.end(call.body);
    });
    this.inFlight.add(done);
    void done.then(() => this.inFlight.delete(done));
  }

  /** `drainSeconds`: how long answers to requests already sent are waited for. */
  async run(streams: Stream[], seconds: number, drainSeconds = 20): Promise<RunResult> {
    const cpuAtStart = process.cpuUsage();
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const start = performance.now();
    this.startedAt = start;
    const end = start + seconds * 1000;
    const sent = streams.map(() => 0);
    const exhausted = new Set<string>();
    const dueLater = (now: number) => {
      for (let k = this.later.length - 1; k >= 0; k--) {
        const item = this.later[k]!;
        if (item.at <= now) {
          this.later.splice(k, 1);
          this.send(item.call, item.at);
        }
      }
    };
    for (let now = performance.now(); now < end; now = performance.now()) {
      streams.forEach((stream, s) => {
        const owed = owedBy(now - start, stream.rate);
        while (sent[s]! < owed) {
          sent[s]!++;
          const scheduled = start + scheduledAt(sent[s]!, stream.rate);
          const calls = stream.next();
          if (!calls) exhausted.add(stream.name);
          for (const call of [calls ?? []].flat()) this.send(call, scheduled);
        }
      });
      dueLater(now);
      await new Promise((r) => setTimeout(r, 1));
    }
    // Follow-ups of the last requests still go out; nothing new is started.
    const drainUntil = performance.now() + drainSeconds * 1000;
    while ((this.inFlight.size || this.later.length) && performance.now() < drainUntil) {
      dueLater(performance.now());
      await new Promise((r) => setTimeout(r, 5));
    }
    loop.disable();
    const cpu = process.cpuUsage(cpuAtStart);
    const elapsed = (performance.now() - start) / 1000;
    return {
      recorder: this.recorder,
      seconds: elapsed,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      exhausted: [...exhausted],
      loopDelay: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
    };
  }

  close(): void {
    for (const a of this.agents) a.destroy();
  }
}
