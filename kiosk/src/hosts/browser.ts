/**
 * The kiosk without Electron: `pnpm kiosk [config.json] [--launch]` runs the core and
 * serves the renderer on loopback; `--launch` opens Chromium in kiosk mode on it.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadKioskConfig } from '../core/config';
import { KioskCore } from '../core/kiosk';
import { startBrowserHost } from './browserHost';

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

async function main(argv: string[]) {
  const configFile =
    argv.find((a) => !a.startsWith('--')) ?? process.env.KIOSK_CONFIG ?? 'kiosk.config.json';
  const core = await KioskCore.start(loadKioskConfig(configFile));
  const host = await startBrowserHost(core, RENDERER_DIR, Number(process.env.KIOSK_PORT ?? 0));
  process.stdout.write(`kiosk ready at ${host.url}\n`);
  if (argv.includes('--launch')) launchChromium(host.url);
  const stop = () => void Promise.all([host.close(), core.stop()]).then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).catch((error: Error) => {
    process.stderr.write(`kiosk: ${error.message}\n`);
    process.exit(1);
  });
}
