import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeSmsNotOnce, depositsNotInTheirDoor, doublyOccupied } from './invariants';
import { owedBy, scheduledAt } from './driver';
import { isBackground, pinParts } from './processes';
import { DEFAULT_SHARES, polishBusiestHour, poolsFor, scaled, totalRate } from './plan';
import { nextFraction, percentile, Recorder, sustained } from './stats';

describe('peak-hour statistics', () => {
  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 99)).toBe(0);
  });

  it('counts unexpected statuses and transport failures as errors, per endpoint and in all', () => {
    const r = new Recorder();
    r.sent('a');
    r.answered('a', 200, 5, true);
    r.sent('a');
    r.answered('a', 500, 50, false);
    r.sent('b');
    r.failed('b', 'error(ECONNRESET)');
    const [a, b, all] = r.figures();
    expect(a).toMatchObject({ endpoint: 'a', sent: 2, answered: 2, errors: 1, 'max ms': 50 });
    expect(a!.statuses).toBe('200:1 500:1');
    expect(b).toMatchObject({ endpoint: 'b', sent: 1, answered: 0, errors: 1 });
    expect(all).toMatchObject({ endpoint: 'ALL', sent: 3, answered: 2, errors: 2 });
    expect(sustained([a!], 100)).toBe(false);
  });

  it('holds only with every endpoint answered, error-free and under the p99 bound', () => {
    const ok = new Recorder();
    ok.sent('a');
    ok.answered('a', 304, 20, true);
    expect(sustained(ok.figures(), 100)).toBe(true);
    expect(sustained(ok.figures(), 20)).toBe(false);
  });

  it('searches by doubling, then bisects between held and failed fractions', () => {
    expect(nextFraction([], 2)).toBe(1);
    expect(nextFraction([{ fraction: 1, held: true }], 1.5)).toBe(1.5);
    expect(nextFraction([{ fraction: 1.5, held: true }], 1.5)).toBeUndefined();
    expect(nextFraction([{ fraction: 1, held: false }], 1.5)).toBe(0.5);
    // Low fractions keep being bisected: a loaded machine may hold only a few percent.
    expect(
      nextFraction(
        [
          { fraction: 0.05, held: false },
          { fraction: 0.025, held: false },
        ],
        1.5,
      ),
    ).toBe(0.01);
    expect(
      nextFraction(
        [
          { fraction: 1, held: false },
          { fraction: 0.5, held: true },
        ],
        1.5,
      ),
    ).toBe(0.75);
    expect(
      nextFraction(
        [
          { fraction: 0.5, held: true },
          { fraction: 0.54, held: false },
        ],
        1.5,
      ),
    ).toBeUndefined();
  });
});

describe('peak-hour mix', () => {
  it('is the Polish busiest hour: ~233 parcels/s and roughly 5,900 requests/s with the offline sets', () => {
    const hour = polishBusiestHour();
    expect(hour.deposit).toBeCloseTo(233.3, 1);
    expect(hour.heartbeat).toBeCloseTo(466.7, 1);
    expect(hour.cabinet).toBeCloseTo(1866.7, 1);
    // The kiosk's offline pickup set every 15 s, its deposit set every minute.
    expect(hour.offlinePickups).toBeCloseTo(1866.7, 1);
    expect(hour.offlineDeposits).toBeCloseTo(466.7, 1);
    expect(hour.cabinetHints).toBe(0);
    expect(totalRate(hour)).toBeGreaterThan(5800);
    expect(totalRate(hour)).toBeLessThan(6000);
    expect(totalRate(scaled(hour, 0.5))).toBeCloseTo(totalRate(hour) / 2, 6);
  });

  it('on the live link: the idle grid poll every 300 s, one more after each change', () => {
    const alone = polishBusiestHour();
    const linked = polishBusiestHour(undefined, undefined, true);
    expect(linked.cabinet).toBeCloseTo(28_000 / 300, 1);
    expect(linked.cabinetHints).toBe(1);
    // 1,867 idle polls a second become 93 idle and 467 after a deposit or a collection.
    expect(totalRate(alone) - totalRate(linked)).toBeCloseTo(1866.7 - 93.3 - 466.7, 1);
  });

  it('seeds enough for every phase, and no hot station past 40 deposits', () => {
    const pools = poolsFor(polishBusiestHour(), DEFAULT_SHARES, [
      { name: 'a', fraction: 1, seconds: 60, instances: 1 },
      { name: 'b', fraction: 0.5, seconds: 20, instances: 2 },
    ]);
    expect(pools.pickups).toBeGreaterThanOrEqual(233.3 * 70);
    expect(pools.booked + pools.hotBooked).toBeGreaterThanOrEqual(233.3 * 70);
    expect(pools.hotBooked / pools.hotStations).toBeLessThanOrEqual(40);
  });
});

describe('peak-hour invariants', () => {
  it('finds a door named by two parcels', () => {
    expect(
      doublyOccupied([
        { station: 's1', door: 3 },
        { station: 's2', door: 3 },
        { station: 's1', door: 3 },
        { station: 's1', door: null },
        { station: 's1', door: null },
      ]),
    ).toEqual(['s1:3']);
  });

  it('finds 200 deposits not stored in the door their answer named', () => {
    const stored = new Map([
      ['A', { tracking_number: 'A', status: 'ready_for_pickup', slot_no: 5, occupied_position: 5 }],
      ['B', { tracking_number: 'B', status: 'ready_for_pickup', slot_no: 6, occupied_position: 7 }],
      ['C', { tracking_number: 'C', status: 'booked', slot_no: null, occupied_position: null }],
    ]);
    expect(
      depositsNotInTheirDoor(
        [
          { trackingNumber: 'A', door: 5 },
          { trackingNumber: 'B', door: 6 },
          { trackingNumber: 'C', door: 1 },
          { trackingNumber: 'D', door: 1 },
        ],
        stored,
      ),
    ).toEqual(['B', 'C', 'D']);
  });

  it('finds code SMS missing or sent twice', () => {
    expect(codeSmsNotOnce(['A', 'B', 'C'], ['A', 'C', 'C', 'X'])).toEqual({
      missing: ['B'],
      repeated: ['C'],
    });
  });

  it('leaves background statements out of a request round-trip count', () => {
    expect(isBackground('update outbox set attempts = attempts + 1 where id in (...)')).toBe(true);
    expect(
      isBackground(
        'select w.url, e.body from unnest($1::uuid[], $2::uuid[]) as x(endpoint_id, event_id)\n' +
          '  join webhook_endpoints w on w.id = x.endpoint_id join events e on e.id = x.event_id',
      ),
    ).toBe(true);
    expect(
      isBackground(
        'delete from rate_limit_windows where attempts[cardinality(attempts)] < now() - interval $1',
      ),
    ).toBe(true);
    expect(isBackground('insert into outbox (channel, payload) values ($1, $2)')).toBe(false);
    // A request's event statement queues its deliveries: counted, not background.
    expect(
      isBackground(
        'with recorded as (insert into events (id) values ($1) returning id), deliveries as (\n' +
          '  insert into outbox (channel) select $2 from recorded, webhook_endpoints w\n' +
          '   where w.organization_id = $3 and w.disabled_at is null) select 1',
      ),
    ).toBe(false);
    expect(isBackground('select 1 from stations where id = $1 for update')).toBe(false);
  });

  it('schedules each paced request at the moment it becomes owed, not one interval before', () => {
    for (const rate of [0.25, 1.15, 11.65, 933]) {
      for (const n of [1, 2, 7, 50]) {
        const due = scheduledAt(n, rate);
        // (A microsecond of slack for floating point: the driver ticks every millisecond.)
        expect(owedBy(due + 0.001, rate), `${rate}/s #${n}`).toBeGreaterThanOrEqual(n);
        expect(owedBy(due - 0.01, rate), `${rate}/s #${n}`).toBe(n - 1);
      }
    }
  });

  it('ramps a stream evenly from 0 to its rate, then paces it as before', () => {
    const rampMs = 10_000;
    for (const rate of [0.25, 1.15, 11.65, 933]) {
      // Over the ramp a stream sends half what the full rate would: the area under it.
      expect(owedBy(rampMs, rate, rampMs)).toBe(Math.floor((rate * rampMs) / 2000));
      // Then exactly the full rate, a second's worth every second.
      expect(owedBy(rampMs + 4000, rate, rampMs) - owedBy(rampMs, rate, rampMs)).toBeCloseTo(
        rate * 4,
        -0.5,
      );
      // The first quarter of the ramp carries a sixteenth of it: the rate starts at 0.
      expect(owedBy(rampMs / 4, rate, rampMs)).toBe(Math.floor((rate * rampMs) / 2000 / 16));
      for (const n of [1, 2, 7, 50, 5000]) {
        const due = scheduledAt(n, rate, rampMs);
        expect(owedBy(due + 0.001, rate, rampMs), `${rate}/s #${n}`).toBeGreaterThanOrEqual(n);
        expect(owedBy(due - 0.01, rate, rampMs), `${rate}/s #${n}`).toBe(n - 1);
      }
    }
  });
});

describe('PEAK_CPUS', () => {
  it('pins every thread of a part to the CPUs named, and refuses a part it does not know', async () => {
    const child = spawn('sleep', ['30']);
    await once(child, 'spawn');
    try {
      const allowed = () =>
        /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      expect(pinParts('server=0', [child.pid!])).toBe('server on CPU 0 (1 process)');
      expect(allowed()).toBe('0');
      expect(() => pinParts('kiosk=0', [child.pid!])).toThrow(/PEAK_CPUS: "kiosk=0"/);
      expect(() => pinParts('server=all', [child.pid!])).toThrow(/PEAK_CPUS: "server=all"/);
    } finally {
      child.kill();
    }
  });
});
