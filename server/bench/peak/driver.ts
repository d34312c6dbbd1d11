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
  /** The ramp's answers (requests scheduled before the measured part), not judged. */
  ramp: Recorder;
  /** Seconds from the measured part's start (as noticed) to the last answer waited for. */
  seconds: number;
  /** CPU seconds this process (generator and sinks) used during the run. */
  cpuSeconds: number;
  /** Streams that ran out of seeded items before the end. */
  exhausted: string[];
  /** How late this process's event loop ran (ms): a stall here is not the server's. */
  loopDelay: { p99: number; max: number };
}

/**
 * How many requests a stream of `rate` per second owes `elapsedMs` after its start, when
 * its rate rises evenly from 0 over the first `rampMs` (then stays at `rate`).
 */
export function owedBy(elapsedMs: number, rate: number, rampMs = 0): number {
  if (elapsedMs < rampMs) return Math.floor((rate * elapsedMs * elapsedMs) / (2 * rampMs) / 1000);
  return Math.floor(((elapsedMs - rampMs / 2) / 1000) * rate);
}

/**
 * When the `n`-th request (from 1) of a stream of `rate` per second is due: the moment
 * `owedBy` first counts it. (Counting from the (n-1)-th's time instead charged every
 * request one interval between requests it never waited: 4 s for a stream of 0.25/s.)
 */
export function scheduledAt(n: number, rate: number, rampMs = 0): number {
  const steady = (n * 1000) / rate;
  // Owed during the ramp: the area under the rising rate, rate·t²/(2·ramp).
  if (steady < rampMs / 2) return Math.sqrt(2 * rampMs * steady);
  return steady + rampMs / 2;
}

export interface RunOptions {
  /** How long answers to requests already sent are waited for after the run (s). */
  drainSeconds?: number;
  /**
   * A lead-in before the measured `seconds`: every stream's rate rises evenly from 0 to
   * its own over this long (s). Its answers are kept apart (`RunResult.ramp`), and the
   * run's figures, CPU and slow answers count from its end.
   */
  rampSeconds?: number;
  /** Called once when the measured part starts (after the ramp). */
  onMeasureStart?: () => void;
}

/**
 * Open-loop load: each millisecond sends what every stream's schedule owes, and latency
 * counts from a request's scheduled time, so a stalled generator or server shows as
 * latency, not as fewer requests (no coordinated omission). Follow-ups (a label after a
 * create, a confirm after a pickup) are scheduled from the answer, after their delay.
 */
export class Driver {
  readonly recorder = new Recorder();
  /** Requests scheduled before `measuredFrom` (a ramp's) are counted here instead. */
  readonly rampRecorder = new Recorder();
  private readonly agents: http.Agent[];
  private readonly later: { at: number; call: Call }[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private next = 0;
  /** Answers slower than 100 ms: when they were scheduled (ms into the run), what, how slow. */
  readonly slow: { at: number; endpoint: string; ms: number }[] = [];
  /** When the measured part starts (performance.now()); slow answers count from here. */
  private measuredFrom = 0;

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
    const measured = scheduled >= this.measuredFrom;
    const recorder = measured ? this.recorder : this.rampRecorder;
    recorder.sent(call.endpoint);
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
            recorder.answered(call.endpoint, status, ms, call.expect.includes(status));
            if (ms > 100 && measured)
              this.slow.push({ at: scheduled - this.measuredFrom, endpoint: call.endpoint, ms });
            try {
              call.then?.(status, res.headers, Buffer.concat(chunks).toString('utf8'));
            } finally {
              resolve();
            }
          });
        },
      );
      req.on('error', (error) => {
        recorder.failed(call.endpoint, `error(${(error as NodeJS.ErrnoException).code})`);
        resolve();
      });
      req.end(call.body);
    });
    this.inFlight.add(done);
    void done.then(() => this.inFlight.delete(done));
  }

  async run(streams: Stream[], seconds: number, options: RunOptions = {}): Promise<RunResult> {
    const { drainSeconds = 20, rampSeconds = 0 } = options;
    const rampMs = rampSeconds * 1000;
    let cpuAtStart = process.cpuUsage();
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const start = performance.now();
    this.measuredFrom = start + rampMs;
    let measuring = false;
    // When the measured part was noticed to start: a loop turn after `measuredFrom`.
    let measuredAt = start;
    const startMeasuring = () => {
      measuring = true;
      // The caller's work first, so that neither its time nor its stall is measured.
      options.onMeasureStart?.();
      cpuAtStart = process.cpuUsage();
      loop.reset();
      measuredAt = performance.now();
    };
    const end = this.measuredFrom + seconds * 1000;
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
      if (!measuring && now >= this.measuredFrom) startMeasuring();
      streams.forEach((stream, s) => {
        const owed = owedBy(now - start, stream.rate, rampMs);
        while (sent[s]! < owed) {
          sent[s]!++;
          const scheduled = start + scheduledAt(sent[s]!, stream.rate, rampMs);
          const calls = stream.next();
          if (!calls) exhausted.add(stream.name);
          for (const call of [calls ?? []].flat()) this.send(call, scheduled);
        }
      });
      dueLater(now);
      await new Promise((r) => setTimeout(r, 1));
    }
    // A stall that carried the loop from the ramp past the end: measured from here.
    if (!measuring) startMeasuring();
    // Follow-ups of the last requests still go out; nothing new is started.
    const drainUntil = performance.now() + drainSeconds * 1000;
    while ((this.inFlight.size || this.later.length) && performance.now() < drainUntil) {
      dueLater(performance.now());
      await new Promise((r) => setTimeout(r, 5));
    }
    loop.disable();
    const cpu = process.cpuUsage(cpuAtStart);
    const elapsed = (performance.now() - measuredAt) / 1000;
    return {
      recorder: this.recorder,
      ramp: this.rampRecorder,
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
