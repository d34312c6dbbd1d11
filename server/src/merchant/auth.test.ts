import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { createOrganization } from '../admin/commands';
import { ProblemError } from '../http/problem';
import { useTestServer } from '../../test/harness';
import { pruneRateLimitWindows } from '../ratelimit/slidingWindow';
import { authenticateOrganization } from './auth';

const stack = useTestServer();
const LIMIT = 10;
const MINUTE = 60_000;

/** A request's context as the guard reads it: its bearer key, and where it writes. */
function contextWith(key: string): Context {
  const headers = new Map<string, string>();
  return {
    req: { headersDistinct: { authorization: [`Bearer ${key}`] } },
    state: {},
    set: (name: string, value: string) => headers.set(name, value),
    headers,
  } as unknown as Context;
}

/**
 * A new organization's requests at the given times (ms after an epoch minute), through
 * the real guard on the real database, the clock injected: admitted or refused, each with
 * the Retry-After of a refusal.
 */
async function send(times: number[], limit = LIMIT) {
  let now = new Date(0);
  const middleware = authenticateOrganization(stack.sql, limit, () => now);
  const { apiKey } = await createOrganization(stack.sql, `Shop ${randomUUID()}`);
  const start = Math.ceil(Date.now() / MINUTE) * MINUTE;
  const outcomes: { at: number; admitted: boolean; retryAfter?: number }[] = [];
  for (const at of times) {
    now = new Date(start + at);
    const ctx = contextWith(apiKey);
    let admitted = false;
    try {
      await middleware(ctx, () => {
        admitted = true;
        return Promise.resolve();
      });
      outcomes.push({ at, admitted });
    } catch (error) {
      expect(error).toBeInstanceOf(ProblemError);
      const retryAfter = Number((error as ProblemError).headers['Retry-After']);
      outcomes.push({ at, admitted, retryAfter });
    }
  }
  return outcomes;
}

const burst = (at: number, count: number) => Array.from({ length: count }, (_, i) => at + i);

describe('the merchant guard: the key and the limit in one statement', () => {
  it('confines the request to the key’s organization, and counts a request only with a valid key', async () => {
    // The clock starts now: a window stamped an hour ago is the sweep's to prune.
    let now = new Date();
    const middleware = authenticateOrganization(stack.sql, 2, () => now);
    const org = await createOrganization(stack.sql, `Shop ${randomUUID()}`);
    const admitted = async (key: string) => {
      const ctx = contextWith(key);
      let through = false;
      await middleware(ctx, () => {
        through = true;
        return Promise.resolve();
      });
      return { through, ctx };
    };
    const first = await admitted(org.apiKey);
    expect(first.through).toBe(true);
    expect(first.ctx.state.organization).toEqual({ id: org.id, name: org.name, sandbox: false });
    expect(
      (first.ctx as unknown as { headers: Map<string, string> }).headers.get('RateLimit-Policy'),
    ).toBe('2;w=60');
    // A wrong key: 401, and the organization's window does not move.
    await expect(admitted(`${org.apiKey}x`)).rejects.toMatchObject({ status: 401 });
    now = new Date(now.getTime() + 1_000);
    // The server's own sweep runs beside the test (every 15 s) and may come between any
    // two requests: run it here, where it once emptied a window stamped in the past.
    await pruneRateLimitWindows(stack.sql);
    expect((await admitted(org.apiKey)).through).toBe(true);
    now = new Date(now.getTime() + 1_000);
    await expect(admitted(org.apiKey)).rejects.toMatchObject({ status: 429 });
    // A revoked key stops at once, before the limit.
    await stack.sql`update api_keys set revoked_at = now() where organization_id = ${org.id}`;
    await expect(admitted(org.apiKey)).rejects.toMatchObject({ status: 401 });
  });
});

describe('merchant rate limit: an exact sliding window of 60 s', () => {
  it('refuses a second burst across the minute boundary that a per-minute estimate let through', async () => {
    // Ten at the end of one minute, ten just before the same second of the next: the old
    // estimate (previous minute weighted by what is left of it) admitted nine of them.
    const outcomes = await send([...burst(59_900, LIMIT), ...burst(119_800, LIMIT)]);
    expect(outcomes.slice(0, LIMIT).every((o) => o.admitted)).toBe(true);
    expect(outcomes.slice(LIMIT).filter((o) => o.admitted)).toEqual([]);
    // Told to come back when the oldest of the window has left it: 59.9 s + 60 s.
    expect(outcomes[LIMIT]!.retryAfter).toBe(1);
  });

  it('admits again once the oldest request of the window is 60 s old, and not a moment before', async () => {
    const outcomes = await send([...burst(1_000, LIMIT), 60_999, 61_001]);
    expect(outcomes.map((o) => o.admitted)).toEqual([...Array(LIMIT).fill(true), false, true]);
  });

  it('admits exactly what the sliding window allows, whatever the arrival times', async () => {
    const arrivals = fc
      .array(fc.integer({ min: 0, max: 200_000 }), { minLength: 5, maxLength: 40 })
      .map((times) => times.sort((a, b) => a - b));
    await fc.assert(
      fc.asyncProperty(arrivals, async (times) => {
        const outcomes = await send(times);
        outcomes.forEach((o, i) => {
          // Every request counts, refused ones included: admitted when at most LIMIT
          // arrived in (t - 60 s, t], itself included.
          const inWindow = times.slice(0, i + 1).filter((t) => t > o.at - MINUTE).length;
          expect(o.admitted, `request ${i} at ${o.at}`).toBe(inWindow <= LIMIT);
        });
        // Hence never more than LIMIT admitted in any 60 s.
        const admitted = outcomes.filter((o) => o.admitted).map((o) => o.at);
        for (const t of admitted)
          expect(admitted.filter((u) => u > t - MINUTE && u <= t).length).toBeLessThanOrEqual(
            LIMIT,
          );
      }),
      { numRuns: 40 },
    );
  });
});
