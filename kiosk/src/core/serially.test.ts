import { describe, expect, it } from 'vitest';
import { serially } from './serially';

/** A promise settled from outside. */
function deferred() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('serially', () => {
  it('starts a call made during a run only after that run has settled, failed or not', async () => {
    const runs = [deferred(), deferred(), deferred()];
    const log: string[] = [];
    let n = 0;
    const run = serially(async () => {
      const i = n++;
      log.push(`start ${i}`);
      await runs[i]!.promise;
      log.push(`end ${i}`);
    });
    const first = run();
    const second = run();
    const third = run();
    await Promise.resolve();
    expect(log).toEqual(['start 0']);
    runs[0]!.reject(new Error('unreachable'));
    await expect(first).rejects.toThrow('unreachable');
    await new Promise((r) => setTimeout(r, 0));
    // The failed run let the next one start; the third still waits for the second.
    expect(log).toEqual(['start 0', 'start 1']);
    runs[2]!.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(log).toEqual(['start 0', 'start 1']);
    runs[1]!.resolve();
    await second;
    await third;
    expect(log).toEqual(['start 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });
});
