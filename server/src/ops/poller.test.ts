import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { startPoller, type Poller } from './poller';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let poller: Poller | undefined;
afterEach(async () => {
  await poller?.stop();
  poller = undefined;
});

/** A poller whose work is counted, each run taking `runMs`; `more` answers its result. */
function counted(options: { gatherMs?: number; runMs?: number; more?: () => boolean }) {
  const starts: number[] = [];
  poller = startPoller(
    'test',
    60_000,
    createLogger('silent'),
    async () => {
      starts.push(performance.now());
      await sleep(options.runMs ?? 1);
      return options.more?.() ?? false;
    },
    { gatherMs: options.gatherMs ?? 0 },
  );
  return { poller, starts };
}

describe('a poller', () => {
  it('without gathering, runs again after a run for each burst of nudges during it', async () => {
    const { poller, starts } = counted({ runMs: 5 });
    await sleep(20);
    for (let i = 0; i < 10; i++) {
      poller.nudge();
      await sleep(2);
    }
    await sleep(50);
    // The first run, then one after each run a nudge came during: several.
    expect(starts.length).toBeGreaterThanOrEqual(3);
  });

  it('gathers the nudges of a busy stretch into one run per gathering window', async () => {
    const { poller, starts } = counted({ gatherMs: 500, runMs: 2 });
    await sleep(5);
    expect(starts).toHaveLength(1);
    // Ten nudges a few milliseconds apart, all within 500 ms of the first run's start:
    // one run more, at that run's start + 500 ms, not ten and not at once.
    for (let i = 0; i < 10; i++) {
      poller.nudge();
      await sleep(3);
    }
    expect(starts).toHaveLength(1);
    await sleep(600);
    expect(starts).toHaveLength(2);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(490);
    // Quiet for longer than the window: a nudge runs at once.
    await sleep(550);
    poller.nudge();
    await sleep(10);
    expect(starts).toHaveLength(3);
  });

  it('goes on at once after a full batch, and runNow never waits for the window', async () => {
    let batches = 3;
    const { poller, starts } = counted({ gatherMs: 1_000, runMs: 1, more: () => --batches > 0 });
    await sleep(30);
    // Three runs back to back: the first two found a full batch.
    expect(starts).toHaveLength(3);
    const before = performance.now();
    await poller.runNow();
    expect(starts).toHaveLength(4);
    expect(performance.now() - before).toBeLessThan(500);
  });

  it('runs a nudge held for its window even when nothing else comes, and never after stop', async () => {
    const { poller, starts } = counted({ gatherMs: 300 });
    await sleep(5);
    poller.nudge();
    while (starts.length < 2) await sleep(5);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(290);
    // Held for the window of the run that just began; stopping drops it.
    poller.nudge();
    await poller.stop();
    await sleep(400);
    expect(starts).toHaveLength(2);
  });
});
