import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's Chromium as the tests run it (the kiosk's and the console's pages, the picker). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

let running: Promise<Browser> | undefined;
/** Every context a file opened and has not closed, by the file that opened it. */
const openedBy = new Map<BrowserContext, string>();
const contextsWhere = (opener: (file: string) => boolean) =>
  [...openedBy].filter(([, by]) => opener(by)).map(([context]) => context);

function chromiumOfThisWorker(): Promise<Browser> {
  const starting = running;
  // Set before anything is awaited: two files asking at once share one start.
  running = (async () => {
    const browser = await starting?.catch(() => undefined);
    if (browser?.isConnected()) return browser;
    return chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
    });
  })();
  return running;
}

/**
 * A browser for one test file: one Chromium per test worker serves every file the worker
 * runs (a worker keeps its modules between files: `isolate: false`), since starting one
 * and closing it cost about 3 s of CPU, twenty times a run (docs/decisions.md, "CI").
 * Each file still gets pages of its own: every page is in a context of its own (cookies,
 * storage, permissions, viewport), and `close()` closes every context the file opened,
 * with their pages; Chromium itself ends with the worker. Contexts an earlier file left
 * open (its clean-up failed before closing them) are closed when the next file starts
 * one, and a Chromium that crashed, or failed to start, is started again.
 */
export async function launchBrowser(): Promise<Browser> {
  const file = expect.getState().testPath ?? '';
  const left = contextsWhere((by) => by !== file);
  await Promise.all(left.map((context) => context.close().catch(() => {})));
  const browser = await chromiumOfThisWorker();
  const opened = () => contextsWhere((by) => by === file);
  const keep = <T extends BrowserContext>(context: T): T => {
    openedBy.set(context, file);
    context.once('close', () => openedBy.delete(context));
    return context;
  };
  return new Proxy(browser, {
    get(target, property, receiver) {
      if (property === 'newContext')
        return async (...args: Parameters<Browser['newContext']>) =>
          keep(await target.newContext(...args));
      if (property === 'newPage')
        return async (...args: Parameters<Browser['newPage']>) => {
          const page = await target.newPage(...args);
          keep(page.context());
          return page;
        };
      if (property === 'contexts') return opened;
      if (property === 'close')
        return async () => {
          await Promise.all(opened().map((context) => context.close().catch(() => {})));
        };
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}
