import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  KioskCore,
  ROTATION_STEPS,
  enrol,
  loadKioskConfig,
  readCredentials,
  type RotationStep,
} from '@locker/kiosk';
import { client, useTestServer } from '@locker/server/testing';
import { createTerminal } from '../../server/src/opsApi/terminals';
import { cliActor } from '../../server/src/operators/audit';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHILD = path.join(ROOT, 'test/kiosk/rotationChild.ts');

const stack = useTestServer();

/** A kiosk as installed and enrolled: its token in credentials.json, due for rotation. */
async function enrolledKiosk() {
  const { station } = await stack.scene('1:S');
  const created = await createTerminal(
    stack.sql,
    cliActor(),
    station.code,
    stack.server.config.pickupCodeSecret,
  );
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kiosk-rotation-'));
  const configFile = path.join(dir, 'kiosk.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      serverUrl: stack.url,
      credentialsFile: 'credentials.json',
      lock: { kind: 'simulator', boards: 1 },
      dataDir: 'data',
      heartbeatIntervalSeconds: 1,
    }),
    { mode: 0o640 },
  );
  await stack.sql`delete from rate_limit_windows`;
  const credentials = path.join(dir, 'credentials.json');
  const enrolled = await enrol(stack.url, created.enrolment.code, credentials);
  return { dir, configFile, credentials, terminalId: created.terminal.id, first: enrolled.token };
}

/** The token is this many days old on the service. */
const age = (terminalId: string, days: number) =>
  stack.sql`update terminals set token_issued_at = now() - make_interval(days => ${days})
             where id = ${terminalId}`;

const status = async (token: string) =>
  (await client(stack.url, token).get('/terminal/v1/cabinet')).status;

/** Runs a kiosk whose power is cut at `step`; resolves with what it printed. */
function cutAt(configFile: string, step: RotationStep): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, configFile, step], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const deadline = setTimeout(() => child.kill('SIGKILL'), 50_000);
  return new Promise((resolve) =>
    child.on('close', (_code, signal) => {
      clearTimeout(deadline);
      expect(signal).toBe('SIGKILL');
      resolve(out);
    }),
  );
}

describe('rotating device tokens', () => {
  it('offers no new token while the current one is young', async () => {
    const kiosk = await enrolledKiosk();
    const answer = await client(stack.url, kiosk.first).post('/terminal/v1/credentials', {});
    expect(answer.status).toBe(200);
    expect(answer.body.next_token).toBeNull();
    expect(Date.parse(answer.body.rotate_after) - Date.now()).toBeGreaterThan(24.9 * 86400_000);
  });

  it('the old token works until the new one is seen, then stops; revocation ends both', async () => {
    const kiosk = await enrolledKiosk();
    await age(kiosk.terminalId, 26);
    const offered = await client(stack.url, kiosk.first).post('/terminal/v1/credentials', {});
    const next = offered.body.next_token as string;
    expect(next).toMatch(/^tdev_/);
    // Both work until the new one is used; the old one again, and again.
    expect(await status(kiosk.first)).toBe(200);
    expect(await status(kiosk.first)).toBe(200);
    // Asked again (the answer was lost): another new token, the unseen one is gone.
    const again = (await client(stack.url, kiosk.first).post('/terminal/v1/credentials', {})).body
      .next_token as string;
    expect(again).not.toBe(next);
    expect(await status(next)).toBe(401);
    expect(await status(again)).toBe(200);
    expect(await status(kiosk.first)).toBe(401);
    expect(await status(again)).toBe(200);
    const young = await client(stack.url, again).post('/terminal/v1/credentials', {});
    expect(young.body.next_token).toBeNull();

    // Revocation while a new token is offered and unseen: neither gets in.
    await age(kiosk.terminalId, 26);
    const pending = (await client(stack.url, again).post('/terminal/v1/credentials', {})).body
      .next_token as string;
    await stack.sql`update terminals set revoked_at = now() where id = ${kiosk.terminalId}`;
    await expect.poll(() => status(again)).toBe(401);
    expect(await status(pending)).toBe(401);
  });

  it('a kiosk offline for two months gets in with its old token and rotates then', async () => {
    const kiosk = await enrolledKiosk();
    await age(kiosk.terminalId, 60);
    const core = await KioskCore.start(loadKioskConfig(kiosk.configFile), { stdout: false });
    try {
      await expect.poll(() => readCredentials(kiosk.credentials)?.token).not.toBe(kiosk.first);
      const stored = readCredentials(kiosk.credentials)!;
      expect(stored.next).toBeUndefined();
      expect(await status(stored.token)).toBe(200);
      expect(await status(kiosk.first)).toBe(401);
      expect((await core.getState()).condition).toBe('ok');
    } finally {
      await core.stop();
    }
  });

  it.each(ROTATION_STEPS)(
    'power cut at "%s": the kiosk comes back with a working token and ends the rotation',
    async (step) => {
      const kiosk = await enrolledKiosk();
      await age(kiosk.terminalId, 26);
      expect(await cutAt(kiosk.configFile, step)).toContain(`reached ${step}`);

      // What the cut left: a whole file (a temporary one beside it at most), holding a
      // token the service takes now.
      const left = readCredentials(kiosk.credentials)!;
      const works = await Promise.all(
        [left.token, left.next].filter((t) => t !== undefined).map(status),
      );
      expect(works).toContain(200);
      expect(readdirSync(kiosk.dir).filter((f) => !f.startsWith('.'))).toContain(
        'credentials.json',
      );

      // Power back: the kiosk gets in and finishes (or starts again) the rotation.
      const core = await KioskCore.start(loadKioskConfig(kiosk.configFile), { stdout: false });
      try {
        await expect
          .poll(() => {
            const now = readCredentials(kiosk.credentials)!;
            return now.next === undefined && now.token !== kiosk.first;
          })
          .toBe(true);
        await expect.poll(async () => (await core.getState()).condition).toBe('ok');
        const done = readCredentials(kiosk.credentials)!;
        expect(await status(done.token)).toBe(200);
        expect(await status(kiosk.first)).toBe(401);
        expect(JSON.parse(readFileSync(kiosk.credentials, 'utf8'))).not.toHaveProperty('next');
      } finally {
        await core.stop();
      }
    },
  );
});
