/**
 * The kiosk without Electron: `pnpm kiosk [config.json] [--launch]` runs the core and
 * serves the renderer on loopback; `--launch` opens Chromium in kiosk mode on it.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadKioskConfig } from '../core/config';
import { KioskCore } from '../core/kiosk';
import { startBrowserHost, type BrowserHost } from './browserHost';

export const RENDERER_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../dist/renderer',
);

export function launchChromium(
  url: string,
  executable = process.env.CHROMIUM ?? '/usr/bin/chromium',
) {
  return spawn(
    executable,
    [
      '--kiosk',
      `--app=${url}`,
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--noerrdialogs',
      '--disable-translate',
    ],
    { stdio: 'ignore' },
  );
}

/** The browser host's process: `main` below, or a release's entry (kiosk-launch). */
export async function runBrowserHost(argv: string[]) {
  const configFile =
    argv.find((a) => !a.startsWith('--')) ?? process.env.KIOSK_CONFIG ?? 'kiosk.config.json';
  // An update restarts the process (the launcher starts the new release), in order.
  let restart = () => {};
  const core = await KioskCore.start(loadKioskConfig(configFile, { unenrolled: 'allow' }), {
    restart: () => restart(),
  });
  const host = await startBrowserHost(core, RENDERER_DIR, Number(process.env.KIOSK_PORT ?? 0));
  // Before saying ready: a supervisor may stop the kiosk the moment it reads that line.
  restart = exitInOrder(host, core);
  process.stdout.write(`kiosk ready at ${host.url}\n`);
  if (argv.includes('--launch')) launchChromium(host.url);
}

/**
 * Every way out (SIGINT, SIGTERM, an uncaught error or rejection) closes in one order:
 * the host first (no new request reaches the core), then the core (its database last),
 * then the process exits: 0 when asked to stop, 1 after an error.
 */
function exitInOrder(host: BrowserHost, core: KioskCore): () => void {
  let stopping: Promise<void> | undefined;
  const stop = (code: number) => {
    stopping ??= host
      .close()
      .then(() => core.stop())
      .then(
        () => process.exit(code),
        (error: Error) => {
          process.stderr.write(`kiosk: stopping failed: ${error.stack ?? error.message}\n`);
          process.exit(1);
        },
      );
  };
  const fail = (error: unknown) => {
    process.stderr.write(`kiosk: ${error instanceof Error ? error.stack : String(error)}\n`);
    stop(1);
  };
  process.once('SIGINT', () => stop(0));
  process.once('SIGTERM', () => stop(0));
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  return () => stop(0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  runBrowserHost(process.argv.slice(2)).catch((error: Error) => {
    process.stderr.write(`kiosk: ${error.message}\n`);
    process.exit(1);
  });
}
