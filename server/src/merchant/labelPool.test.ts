import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { workerExecArgv } from './labelPool';

describe("the label threads' Node flags", () => {
  const loader = () => 'file:///x/tsx/dist/loader.mjs';

  it('keep the module loaders and drop process-wide flags a thread refuses', () => {
    expect(
      workerExecArgv(['--trace-gc', '--import', 'tsx', '--max-old-space-size=4096'], loader),
    ).toEqual(['--import', 'tsx']);
    expect(
      workerExecArgv(
        [
          '--cpu-prof',
          '--cpu-prof-dir=/tmp/p',
          '--require',
          '/a/preflight.cjs',
          '--import=file:///a/tsx/dist/loader.mjs',
        ],
        loader,
      ),
    ).toEqual(['--require', '/a/preflight.cjs', '--import=file:///a/tsx/dist/loader.mjs']);
    // Without tsx's loader (plain `node`), it is added: the worker is TypeScript.
    expect(workerExecArgv(['--trace-gc'], loader)).toEqual(['--import', loader()]);
  });

  it('start a thread where the main thread ran with flags a Worker would refuse', async () => {
    // What labels met: the constructor throws on a process-wide flag.
    expect(() => new Worker('', { eval: true, execArgv: ['--trace-gc'] })).toThrow(/execArgv/);
    const flags = workerExecArgv(['--trace-gc', '--cpu-prof', '--import', 'tsx']);
    const thread = new Worker('require("node:worker_threads").parentPort.postMessage(6 * 7)', {
      eval: true,
      execArgv: flags,
    });
    const answer = await new Promise((resolve, reject) => {
      thread.once('message', resolve);
      thread.once('error', reject);
    });
    expect(answer).toBe(42);
    await thread.terminate();
  });
});
