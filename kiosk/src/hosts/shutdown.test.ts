import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeKioskConfig } from '../core/config';
import { openKioskDatabase } from '../core/database';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BROWSER_HOST = path.join(ROOT, 'kiosk/src/hosts/browser.ts');

/** Throws once the kiosk says it is ready: an error nobody catches, inside the kiosk. */
const FAULT_AFTER_READY = `data:text/javascript,${encodeURIComponent(`
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    if (String(chunk).startsWith('kiosk ready'))
      setTimeout(() => { throw new Error('injected fault'); }, 50);
    return write(chunk, ...rest);
  };`)}`;

let dir: string;
let configFile: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'kiosk-shutdown-'));
  configFile = path.join(dir, 'kiosk.json');
  // Nothing listens on the discard port: the kiosk starts offline, as it must be able to.
  writeKioskConfig(configFile, {
    serverUrl: 'http://127.0.0.1:9',
    deviceToken: 'shutdown-test-token-0123456789',
    lock: { kind: 'simulator', boards: 1 },
    dataDir: './data',
  });
  const db = openKioskDatabase(path.join(dir, 'data'));
  db.prepare(
    'insert into confirms (kind, body, occurred_at, next_attempt_at, created_at) values (?, ?, ?, ?, ?)',
  ).run('door', '{"shipmentId":"s1","collected":true}', new Date().toISOString(), 0, 0);
  db.close();
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * The browser host in its own process, on the Node running the suite; `stopWith` is sent
 * once it is ready (none: it must end by itself).
 */
function runKiosk(stopWith: NodeJS.Signals | null, imports: string[] = []): Promise<Exit> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', ...imports.flatMap((i) => ['--import', i]), BROWSER_HOST, configFile],
    { cwd: ROOT, env: { ...process.env, KIOSK_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.on('data', (c: Buffer) => {
    if (stopWith && c.toString().includes('kiosk ready')) child.kill(stopWith);
  });
  const deadline = setTimeout(() => child.kill('SIGKILL'), 50_000);
  return new Promise((resolve) =>
    // 'close', not 'exit': its last lines on stderr may still be in the pipe at its exit.
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      resolve({ code, signal, stderr });
    }),
  );
}

/** A clean close of the last connection checkpoints the WAL and removes its file. */
function closedCleanly(): boolean {
  return !existsSync(path.join(dir, 'data', 'kiosk.sqlite-wal'));
}

function queuedConfirms(): number {
  const db = new Database(path.join(dir, 'data', 'kiosk.sqlite'), { readonly: true });
  try {
    return (db.prepare('select count(*) as n from confirms').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('kiosk shutdown, on the Node running the suite', () => {
  it('starts and stops repeatedly on SIGTERM and SIGINT: exit 0, database closed, queue kept', async () => {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGTERM'] as const) {
      const exit = await runKiosk(signal);
      expect(exit, exit.stderr).toMatchObject({ code: 0, signal: null });
      expect(exit.stderr).not.toMatch(/Assertion failed|Native stack trace/);
      expect(closedCleanly()).toBe(true);
      expect(queuedConfirms()).toBe(1);
    }
  }, 180_000);

  it('an uncaught error: reported, database closed in order, exit 1 (not an abort)', async () => {
    const exit = await runKiosk(null, [FAULT_AFTER_READY]);
    expect(exit, exit.stderr).toMatchObject({ code: 1, signal: null });
    expect(exit.stderr).toContain('injected fault');
    expect(exit.stderr).not.toMatch(/Assertion failed|Native stack trace/);
    expect(closedCleanly()).toBe(true);
    expect(queuedConfirms()).toBe(1);
  }, 60_000);
});
