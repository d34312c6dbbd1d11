/**
 * The update figures, measured end to end on this machine:
 *   1. a real release: the deployed kiosk (`pnpm deploy --prod`, renderer built) packed
 *      and signed: its size, and the time to pack and sign it;
 *   2. from "assigned" (the rollout row written, as `pnpm admin release assign` does) to
 *      the kiosk running the new version (its heartbeat carries it) and to the release
 *      confirmed healthy (its `running` report), on the simulator under kiosk-launch, with
 *      the kiosk asking every 5 s (in the field: every 300 s, so add up to that).
 *
 *   pnpm --filter @locker/kiosk bench
 */
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  benchDatabase,
  cliActor,
  createStation,
  createTerminal,
  REPO_ROOT,
  setRollout,
  startServer,
  storeRelease,
} from '@locker/server/testing';
import { writeKioskConfig } from '../src/core/config';
import { makeBundle, signRelease } from '../src/updater/release';

const RUNS = 3;
const CHECK_SECONDS = 5;
const work = mkdtempSync(path.join(tmpdir(), 'update-bench-'));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<number> {
  for (;;) {
    if (done(await read())) return performance.now();
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main() {
  // 1. The release as an operator makes it.
  const appDir = path.join(work, 'app');
  const env = { ...process.env, NODE_ENV: 'production' };
  execFileSync('pnpm', ['--filter', '@locker/kiosk', 'build'], { cwd: REPO_ROOT, env });
  execFileSync('pnpm', ['--filter', '@locker/kiosk', 'deploy', '--prod', '--legacy', appDir], {
    cwd: REPO_ROOT,
    env,
    stdio: 'ignore',
  });
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicKeyFile = path.join(work, 'release-key.pub.pem');
  writeFileSync(publicKeyFile, publicKey.export({ type: 'spki', format: 'pem' }));
  const bundle = path.join(work, 'kiosk.tar.gz');
  const packStart = performance.now();
  await makeBundle(appDir, bundle);
  const first = await signRelease('2.0.0', bundle, keyPem);
  const packMs = performance.now() - packStart;
  const unpacked = Number(execFileSync('du', ['-sb', appDir]).toString().split('\t')[0]);
  console.log(
    `release bundle: ${(first.size / 1e6).toFixed(1)} MB tar.gz (${(unpacked / 1e6).toFixed(0)} MB unpacked), packed and signed in ${seconds(packMs)}`,
  );

  // 2. Assigned → running, under kiosk-launch, on the simulator.
  const db = await benchDatabase('locker_bench_update');
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: db.url,
    logLevel: 'silent',
    smsTransport: 'file:/dev/null',
  });
  let launcher: ReturnType<typeof spawn> | undefined;
  try {
    await createStation(db.sql, { code: 'UB1', name: 'Update bench', doors: '1:S' });
    const terminal = await createTerminal(db.sql, 'UB1');
    const configFile = path.join(work, 'kiosk', 'kiosk.json');
    writeKioskConfig(configFile, {
      serverUrl: server.url,
      deviceToken: terminal.token,
      lock: { kind: 'simulator', boards: 1 },
      dataDir: './data',
      heartbeatIntervalSeconds: 1,
      appVersion: '1.0.0',
      updates: { dir: './updates', publicKeyFile, checkSeconds: CHECK_SECONDS, idleSeconds: 0 },
    });
    launcher = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'kiosk/src/updater/launcher.ts'), configFile],
      { cwd: REPO_ROOT, env: { ...process.env, KIOSK_PORT: '0' }, stdio: 'ignore' },
    );
    const runs = async () =>
      (
        await db.sql<{ app_version: string | null }[]>`
          select app_version from terminals where id = ${terminal.id}`
      )[0]!.app_version;
    const confirmed = async () =>
      (
        await db.sql<{ version: string }[]>`
          select version from kiosk_update_reports
           where terminal_id = ${terminal.id} and outcome = 'running'`
      ).map((r) => r.version);
    await until(runs, (v) => v === '1.0.0');
    const running: number[] = [];
    const healthy: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const version = `2.0.${i}`;
      const manifest = i === 0 ? first : await signRelease(version, bundle, keyPem);
      await storeRelease(db.sql, cliActor(), manifest, readFileSync(bundle));
      const assigned = performance.now();
      await setRollout(db.sql, cliActor(), { version, pilotStations: ['UB1'], percent: 0 });
      running.push((await until(runs, (v) => v === version)) - assigned);
      healthy.push((await until(confirmed, (v) => v.includes(version))) - assigned);
    }
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
    console.log(
      `assigned → running the new version (heartbeat): median ${seconds(median(running))} of ${RUNS} (${running.map(seconds).join(', ')}), asking every ${CHECK_SECONDS} s`,
    );
    console.log(
      `assigned → confirmed healthy (report "running"): median ${seconds(median(healthy))} (${healthy.map(seconds).join(', ')})`,
    );
  } finally {
    if (launcher && launcher.exitCode === null) {
      const exited = new Promise((r) => launcher!.once('exit', r));
      launcher.kill('SIGTERM');
      await exited;
    }
    await server.close();
    await db.stop();
  }
}

await main();
