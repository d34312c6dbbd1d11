/**
 * `pnpm start`: the whole stack for a newcomer. The server on the embedded PostgreSQL, a
 * demo organization, station, terminal and courier seeded on an empty database, the demo
 * terminal's kiosk on a simulated cabinet, and everything needed to walk a parcel through
 * printed last, once everything is up. A failure to start is one sentence, exit status 1.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {
  KioskCore,
  RENDERER_DIR,
  hashTechnicianPin,
  launchChromium,
  loadKioskConfig,
  startBrowserHost,
  writeKioskConfig,
} from '@locker/kiosk';
import {
  REPO_ROOT,
  generateLinkKey,
  linkSigner,
  startServer,
  startupMessage,
  type Logger,
  type RunningServer,
} from '@locker/server';
import { ensureConsoleBuilt } from '@locker/console/build';
import { banner, demoOperator, demoScene, type Demo } from './demo';

class StartError extends Error {}

/**
 * The live link's signing key: LINK_SIGNING_KEY when set, else a development key made
 * once and kept in `.data/link-signing-key` (owner only), so the demo kiosk, which pins its
 * public half, keeps trusting the service across restarts.
 */
function linkKey(): { seed: string; publicKey: string } {
  const given = process.env.LINK_SIGNING_KEY?.trim();
  if (given) return { seed: given, publicKey: linkSigner(given).publicKey };
  const file = path.join(REPO_ROOT, '.data/link-signing-key');
  if (existsSync(file)) {
    const seed = readFileSync(file, 'utf8').trim();
    return { seed, publicKey: linkSigner(seed).publicKey };
  }
  const key = generateLinkKey();
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, key.seed + '\n', { mode: 0o600 });
  return key;
}

/** KIOSK_PORT, 8081 by default: where the kiosk's touchscreen page is served. */
function kioskPort(): number {
  const given = process.env.KIOSK_PORT?.trim() || '8081';
  if (!/^\d+$/.test(given) || Number(given) > 65535)
    throw new StartError(
      `bad setting: KIOSK_PORT must be a whole number from 0 to 65535 (got "${given}")`,
    );
  return Number(given);
}

/** The kiosk's browser host would crash on a taken port: say so first, in a sentence. */
async function ensureFree(port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', () =>
      reject(
        new StartError(
          `KIOSK_PORT ${port} is already in use (is \`pnpm start\` already running?): stop what uses it, or set KIOSK_PORT to a free port`,
        ),
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

/**
 * The demo terminal's kiosk on a simulated cabinet whose doors shut by themselves 6 s
 * after opening, gaining a parcel after a deposit and losing it after a pickup.
 */
async function startKiosk(
  serverUrl: string,
  demo: Demo,
  port: number,
  logger: Logger,
  linkPublicKey: string,
) {
  await ensureFree(port);
  execFileSync('pnpm', ['--filter', '@locker/kiosk', 'build'], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const file = path.join(REPO_ROOT, '.data/kiosk/kiosk.json');
  writeKioskConfig(file, {
    serverUrl,
    deviceToken: demo.terminalToken,
    lock: {
      kind: 'simulator',
      boards: 1,
      autoCloseMs: 6000,
      demo: true,
      // The doors' contents survive a restart, so the cabinet agrees with the database.
      stateFile: './cabinet-state.json',
    },
    dataDir: './data',
    // Commands over the live link are signed with the service's key; the kiosk pins it.
    linkPublicKey,
    // The service menu works in the demo: its PIN is printed in the banner.
    technicianPinHash: hashTechnicianPin(demo.technicianPin),
  });
  // The kiosk logs through the stack's logger, so its lines read like the server's.
  const core = await KioskCore.start(loadKioskConfig(file), {
    log: logger.child({ component: 'kiosk' }),
  });
  const host = await startBrowserHost(core, RENDERER_DIR, port);
  return { core, host };
}

let server: RunningServer | undefined;
try {
  const port = kioskPort();
  // The operator console, served under /ops/: built when missing or older than its sources.
  ensureConsoleBuilt();
  // The demo's receivers (and a newcomer's) listen on this machine: webhooks may go to
  // loopback and private addresses here, unless WEBHOOK_ALLOW_PRIVATE says otherwise.
  process.env.WEBHOOK_ALLOW_PRIVATE ||= 'true';
  // A newcomer's demo: the public development pickup secret is allowed, unless
  // PICKUP_CODE_SECRET says otherwise (and NODE_ENV=production still refuses it).
  const key = linkKey();
  server = await startServer({ development: true, linkSigningKey: key.seed });
  const scene = await demoScene(server.sql);
  const demo = scene && (await demoOperator(server.sql, `http://127.0.0.1:${server.port}`, scene));
  const kiosk = demo
    ? await startKiosk(`http://127.0.0.1:${server.port}`, demo, port, server.logger, key.publicKey)
    : undefined;
  const kioskUrl = kiosk?.host.url.replace(/\/$/, '');
  const places = {
    url: `http://localhost:${server.port}`,
    port: server.port,
    kioskUrl,
    kioskPort: kioskUrl ? Number(new URL(kioskUrl).port) : undefined,
  };
  process.stdout.write(banner(places, demo) + '\n');
  if (kiosk && process.argv.includes('--kiosk-window')) launchChromium(kiosk.host.url);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      const stopping = kiosk ? [kiosk.host.close(), kiosk.core.stop()] : [];
      Promise.all(stopping)
        .then(() => server?.close())
        .then(
          () => process.exit(0),
          () => process.exit(1),
        );
    });
  }
} catch (error) {
  const message =
    error instanceof StartError
      ? error.message
      : startupMessage(error, process.env.DATABASE_URL || undefined);
  process.stderr.write(`error: ${message}\n`);
  await server?.close().catch(() => {});
  process.exit(1);
}
