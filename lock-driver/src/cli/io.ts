import { AsyncLocalStorage } from 'node:async_hooks';

/** Where a lockctl run reads answers from and writes to. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  stdin: NodeJS.ReadableStream;
}

const current = new AsyncLocalStorage<CliIo>();

/**
 * The streams of the run in progress: the process's own, unless `withIo` gave others (a
 * test running the CLI in its own process, several runs at once each with their own).
 */
export function io(): CliIo {
  return (
    current.getStore() ?? { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }
  );
}

export function withIo<T>(streams: CliIo, run: () => Promise<T>): Promise<T> {
  return current.run(streams, run);
}
