import { spawn } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../test/databases';
import { REPO_ROOT } from './config';

/** `pnpm serve`'s entry, as its own process: what an operator sees when it cannot start. */
function serve(
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', LOCKER_DEV: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // 'close', not 'exit': what it printed last may still be in the pipes at its exit.
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** One sentence on stderr, exit status 1, no stack trace. */
function oneSentence(result: { code: number | null; stderr: string }): string {
  expect(result.code).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  return lines[0]!;
}

let taken: net.Server;
let takenPort: number;
/** A port nothing listens on: connections to it are refused at once. */
let closedPort: number;
beforeAll(async () => {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  taken = net.createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  takenPort = (taken.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => taken.close(() => r())));

describe('pnpm serve cannot start', () => {
  it('says which setting is bad', async () => {
    const line = oneSentence(await serve({ PORT: '80a80' }));
    expect(line).toBe(
      'error: bad setting: PORT must be a whole number from 0 to 65535 (got "80a80")',
    );
  });

  it('says the database cannot be reached, without its password', async () => {
    const line = oneSentence(
      await serve({
        DATABASE_URL: `postgres://locker:s3cret@127.0.0.1:${closedPort}/nope`,
        PORT: '0',
      }),
    );
    expect(line).toMatch(
      /^error: the database at 127\.0\.0\.1:\d+\/nope cannot be reached: .*check DATABASE_URL/,
    );
    expect(line).not.toContain('s3cret');
  });

  it('says the port is taken and what to do', async () => {
    const line = oneSentence(
      await serve({
        DATABASE_URL: await freshDatabaseUrl(),
        PORT: String(takenPort),
        HOST: '127.0.0.1',
      }),
    );
    expect(line).toBe(
      `error: port ${takenPort} is already in use (is the server already running?): stop what uses it, or set PORT to a free port`,
    );
  });

  // Three starts of the server in a row: its own limit, as the other long tests set theirs.
  it(
    'refuses the public development pickup secret unless development is asked for',
    { timeout: 180_000 },
    async () => {
      const unreachable = `postgres://locker:x@127.0.0.1:${closedPort}/nope`;
      const line = oneSentence(
        await serve({ LOCKER_DEV: '', PICKUP_CODE_SECRET: '', DATABASE_URL: unreachable }),
      );
      expect(line).toBe(
        'error: PICKUP_CODE_SECRET is not set, so pickup codes would be signed with the public development secret: ' +
          'set PICKUP_CODE_SECRET to a long random value of your own, or LOCKER_DEV=1 (`pnpm serve -- --dev`) to run for development',
      );
      // `--dev` (as LOCKER_DEV=1) passes that check: the next failure is the database's.
      const dev = oneSentence(
        await serve({ LOCKER_DEV: '', PICKUP_CODE_SECRET: '', DATABASE_URL: unreachable }, [
          '--dev',
        ]),
      );
      expect(dev).toMatch(/cannot be reached/);
      // A secret of one's own needs no flag.
      const own = oneSentence(
        await serve({
          LOCKER_DEV: '',
          PICKUP_CODE_SECRET: 'a-secret-of-our-own-1234',
          DATABASE_URL: unreachable,
        }),
      );
      expect(own).toMatch(/cannot be reached/);
    },
  );
});
