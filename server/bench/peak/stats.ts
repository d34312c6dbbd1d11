/** Per-endpoint counts and latencies of an open-loop run. */

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export interface EndpointFigures {
  endpoint: string;
  sent: number;
  answered: number;
  /** Transport failures plus answers with a status the request did not expect. */
  errors: number;
  'p50 ms': number;
  'p99 ms': number;
  'max ms': number;
  statuses: string;
}

interface Tally {
  sent: number;
  answered: number;
  errors: number;
  latencies: number[];
  statuses: Map<string, number>;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export class Recorder {
  private readonly tallies = new Map<string, Tally>();

  private tally(endpoint: string): Tally {
    let t = this.tallies.get(endpoint);
    if (!t) {
      t = { sent: 0, answered: 0, errors: 0, latencies: [], statuses: new Map() };
      this.tallies.set(endpoint, t);
    }
    return t;
  }

  sent(endpoint: string): void {
    this.tally(endpoint).sent++;
  }

  /** An answer: its latency counts from the request's scheduled time. */
  answered(endpoint: string, status: number, latencyMs: number, expected: boolean): void {
    const t = this.tally(endpoint);
    t.answered++;
    t.latencies.push(latencyMs);
    t.statuses.set(String(status), (t.statuses.get(String(status)) ?? 0) + 1);
    if (!expected) t.errors++;
  }

  failed(endpoint: string, reason: string): void {
    const t = this.tally(endpoint);
    t.errors++;
    t.statuses.set(reason, (t.statuses.get(reason) ?? 0) + 1);
  }

  figures(): EndpointFigures[] {
    const rows = [...this.tallies].map(([endpoint, t]) => row(endpoint, t));
    const all: Tally = { sent: 0, answered: 0, errors: 0, latencies: [], statuses: new Map() };
    for (const t of this.tallies.values()) {
      all.sent += t.sent;
      all.answered += t.answered;
      all.errors += t.errors;
      for (const l of t.latencies) all.latencies.push(l);
    }
    return [...rows.sort((a, b) => a.endpoint.localeCompare(b.endpoint)), row('ALL', all)];
  }
}

function row(endpoint: string, t: Tally): EndpointFigures {
  const sorted = Float64Array.from(t.latencies).sort();
  const values = Array.from(sorted);
  return {
    endpoint,
    sent: t.sent,
    answered: t.answered,
    errors: t.errors,
    'p50 ms': round1(percentile(values, 50)),
    'p99 ms': round1(percentile(values, 99)),
    'max ms': round1(values.at(-1) ?? 0),
    statuses: [...t.statuses].map(([k, v]) => `${k}:${v}`).join(' '),
  };
}

/**
 * The run held if no endpoint had an error, every request sent was answered and every
 * endpoint's p99 stayed under the bound.
 */
export function sustained(figures: EndpointFigures[], p99BoundMs: number): boolean {
  return figures.every((f) => f.errors === 0 && f.answered === f.sent && f['p99 ms'] < p99BoundMs);
}

/**
 * The search over rates: the highest fraction known to hold, and the next to try, by
 * bisection between the highest that held and the lowest that did not.
 */
export function nextFraction(
  tried: { fraction: number; held: boolean }[],
  ceiling: number,
): number | undefined {
  const held = tried.filter((t) => t.held).map((t) => t.fraction);
  const failed = tried.filter((t) => !t.held).map((t) => t.fraction);
  const low = held.length ? Math.max(...held) : 0;
  const high = failed.length ? Math.min(...failed) : undefined;
  if (high === undefined) return low >= ceiling ? undefined : Math.min(ceiling, low ? low * 2 : 1);
  // Within a tenth of the bound (and 1% of the hour) is as exact as a shared machine allows.
  if (high - low <= Math.max(0.01, high * 0.1)) return undefined;
  return Math.round(((low + high) / 2) * 100) / 100;
}
