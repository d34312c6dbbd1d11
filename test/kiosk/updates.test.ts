/**
 * Signed, staged updates on the simulator, every part real: the service (PostgreSQL), the
 * operator's CLI and operations API, and the kiosk run by its launcher in processes of
 * their own, as systemd runs them. A release is rolled to the pilot ring and runs; a
 * release that never gets healthy is rolled back by the kiosk itself and reported; one
 * signed with another key is refused and reported.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Slots, makeBundle, signRelease, writeKioskConfig } from '@locker/kiosk';
import { client } from '@locker/server/testing';
import { startTestServer, type TestStack } from '../../server/test/harness';
import { signedInOperator, testClock } from '../../server/test/opsClient';
import { runAdmin } from '../../server/src/admin/run';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LAUNCHER = path.join(ROOT, 'kiosk/src/updater/launcher.ts');
const HOST = path.join(ROOT, 'kiosk/src/hosts/browser.ts');
/** Long enough for a release to boot and heartbeat on two busy cores. */
const HEALTH_SECONDS = 30;

const clock = testClock();
let stack: TestStack;
let work: string;
let launcher: ChildProcess | undefined;
let output = '';

beforeAll(async () => {
  stack = await startTestServer({ clock: clock.now });
  work = mkdtempSync(path.join(os.tmpdir(), 'kiosk-updates-'));
});
afterAll(async () => {
  if (launcher && launcher.exitCode === null) {
    const exited = new Promise((resolve) => launcher!.once('exit', resolve));
    launcher.kill('SIGTERM');
    await exited;
  }
  await stack.close();
});

async function cli(...args: string[]) {
  let out = '';
  let err = '';
  const code = await runAdmin(args, {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { ...process.env, DATABASE_URL: stack.databaseUrl, USER: 'blerta' },
  });
  if (code !== 0) throw new Error(`pnpm admin ${args.join(' ')}: ${err}`);
  return JSON.parse(out) as Record<string, unknown>;
}

function keyPair(name: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const file = path.join(work, `${name}.pem`);
  writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(`${file}.pub`, publicKey.export({ type: 'spki', format: 'pem' }));
  return { privateKey: file, publicKey: `${file}.pub` };
}

/**
 * A release folder laid out as the deployed kiosk (its host at src/hosts/browser.ts).
 * `healthy`: the real kiosk host of this clone; otherwise a process that starts and
 * never answers (a release that hangs at boot).
 */
function releaseApp(version: string, healthy: boolean): string {
  const dir = path.join(work, `app-${version}`);
  mkdirSync(path.join(dir, 'src/hosts'), { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'kiosk', version, type: 'module' }),
  );
  writeFileSync(
    path.join(dir, 'src/hosts/browser.ts'),
    healthy
      ? `import { runBrowserHost } from ${JSON.stringify(HOST)};\nawait runBrowserHost(process.argv.slice(2));\n`
      : `setInterval(() => {}, 1000);\n`,
  );
  return dir;
}

/** Made and signed as on the operator's workstation, uploaded with the CLI. */
async function publish(version: string, healthy: boolean, key: string) {
  const bundle = path.join(work, `kiosk-${version}.tar.gz`);
  await makeBundle(releaseApp(version, healthy), bundle);
  const manifest = await signRelease(
    version,
    bundle,
    (await import('node:fs')).readFileSync(key, 'utf8'),
  );
  const manifestFile = path.join(work, `kiosk-${version}.release.json`);
  writeFileSync(manifestFile, JSON.stringify(manifest));
  expect(await cli('release', 'upload', '--manifest', manifestFile, '--bundle', bundle)).toEqual({
    version,
    size: manifest.size,
    sha256: manifest.sha256,
  });
}

const runs = async (terminalId: string) =>
  (
    await stack.sql<{ app_version: string | null }[]>`
      select app_version from terminals where id = ${terminalId}`
  )[0]!.app_version;

const lastReport = async (terminalId: string) =>
  (
    await stack.sql<{ version: string; outcome: string; detail: string | null }[]>`
      select version, outcome, detail from kiosk_update_reports
       where terminal_id = ${terminalId} order by id desc limit 1`
  )[0];

describe('signed, staged kiosk updates', () => {
  it('rolls a release to the pilot ring, rolls back one that is never healthy, refuses a bad signature', async () => {
    const release = keyPair('release');
    const stranger = keyPair('stranger');
    const pilot = await stack.scene('1:S');
    const other = await stack.scene('1:S');

    const configFile = path.join(work, 'kiosk', 'kiosk.json');
    writeKioskConfig(configFile, {
      serverUrl: stack.url,
      deviceToken: pilot.terminal.token,
      lock: { kind: 'simulator', boards: 1 },
      dataDir: './data',
      heartbeatIntervalSeconds: 1,
      appVersion: '1.0.0',
      updates: {
        dir: './updates',
        publicKeyFile: release.publicKey,
        checkSeconds: 1,
        healthSeconds: HEALTH_SECONDS,
        idleSeconds: 0,
      },
    });
    launcher = spawn(process.execPath, ['--import', 'tsx', LAUNCHER, configFile], {
      cwd: ROOT,
      env: { ...process.env, KIOSK_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcher.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    launcher.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    await expect.poll(() => runs(pilot.terminal.id), { timeout: 60_000 }).toBe('1.0.0');

    // Ring 1, the pilot station, through the operations API; a technician may not.
    await publish('2.0.0', true, release.privateKey);
    const technician = await signedInOperator(stack, clock, 'technician', [pilot.station.code]);
    const forbidden = await technician.client.raw('PUT', '/ops/v1/kiosk-rollout', {
      version: '2.0.0',
      pilotStations: [pilot.station.code],
    });
    expect(forbidden.status).toBe(403);
    const operations = await signedInOperator(stack, clock, 'operations');
    const rolled = await operations.client.raw('PUT', '/ops/v1/kiosk-rollout', {
      version: '2.0.0',
      pilotStations: [pilot.station.code],
    });
    expect(rolled.status).toBe(200);
    const ring = new Map(
      (rolled.body.terminals as { id: string; assigned: boolean }[]).map((t) => [t.id, t.assigned]),
    );
    expect(ring.get(pilot.terminal.id)).toBe(true);
    expect(ring.get(other.terminal.id)).toBe(false);
    const outside = await client(stack.url, other.terminal.token).get('/terminal/v1/update');
    expect(outside.body).toEqual({ release: null });

    await expect.poll(() => runs(pilot.terminal.id), { timeout: 90_000 }).toBe('2.0.0');
    await expect
      .poll(() => lastReport(pilot.terminal.id))
      .toEqual({ version: '2.0.0', outcome: 'running', detail: null });
    const slots = new Slots(path.join(work, 'kiosk', 'updates'));
    expect(slots.read()).toMatchObject({ active: 'a', trial: null, versions: { a: '2.0.0' } });

    // A release that never gets healthy: the kiosk goes back to 2.0.0 by itself.
    await publish('2.0.1', false, release.privateKey);
    await cli('release', 'assign', '--version', '2.0.1', '--stations', pilot.station.code);
    await expect
      .poll(() => lastReport(pilot.terminal.id), { timeout: (HEALTH_SECONDS + 60) * 1000 })
      .toEqual({
        version: '2.0.1',
        outcome: 'rolled_back',
        detail: `not healthy within ${HEALTH_SECONDS} s`,
      });
    expect(await runs(pilot.terminal.id)).toBe('2.0.0');
    expect(slots.read()).toMatchObject({
      active: 'a',
      trial: null,
      versions: { a: '2.0.0', b: '2.0.1' },
    });
    expect(output).toContain('kiosk-launch: starting slot b (2.0.1)');

    // Signed with a key that is not the release key: refused, reported, nothing installed.
    await publish('2.0.2', true, stranger.privateKey);
    await cli('release', 'assign', '--version', '2.0.2', '--stations', pilot.station.code);
    await expect
      .poll(() => lastReport(pilot.terminal.id), { timeout: 60_000 })
      .toEqual({
        version: '2.0.2',
        outcome: 'refused',
        detail: 'refused: the signature is not the release key’s',
      });
    expect(slots.read().versions).toEqual({ a: '2.0.0', b: '2.0.1' });
    expect(await runs(pilot.terminal.id)).toBe('2.0.0');
    expect(output).not.toContain('starting slot b (2.0.2)');

    // Signed rightly, but the bytes served are not the ones signed (altered on the way or
    // at rest): refused on the digest, nothing installed.
    await publish('2.0.3', true, release.privateKey);
    await stack.sql`
      update kiosk_releases set bundle = bundle || '\\x00'::bytea where version = '2.0.3'`;
    await cli('release', 'assign', '--version', '2.0.3', '--stations', pilot.station.code);
    await expect
      .poll(() => lastReport(pilot.terminal.id), { timeout: 60_000 })
      .toMatchObject({
        version: '2.0.3',
        outcome: 'refused',
        detail: expect.stringMatching(/^refused: the bundle does not match its signed digest/),
      });
    expect(slots.read().versions).toEqual({ a: '2.0.0', b: '2.0.1' });

    // The operator sees it all; ring 3 (every kiosk) reaches the other station too.
    const status = await cli('release', 'status');
    expect(status.terminals).toContainEqual(
      expect.objectContaining({
        id: pilot.terminal.id,
        appVersion: '2.0.0',
        lastReport: expect.objectContaining({ version: '2.0.3', outcome: 'refused' }),
      }),
    );
    await cli('release', 'assign', '--version', '2.0.0', '--percent', '100');
    const everyone = await client(stack.url, other.terminal.token).get('/terminal/v1/update');
    expect(everyone.body.release).toMatchObject({ version: '2.0.0' });
  }, 400_000);
});
