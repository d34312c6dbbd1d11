/**
 * The console's build, for `pnpm start` and the tests: built when `dist/` is missing or
 * older than any source it is made from (the console's own and shared/'s schemas), so a
 * checkout runs the console it holds with no extra step, and an unchanged one builds
 * nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CONSOLE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** What the server serves under /ops/ (its OPS_CONSOLE_DIR default). */
export const CONSOLE_DIST = path.join(CONSOLE_ROOT, 'dist');
const BUILT = path.join(CONSOLE_DIST, 'index.html');
const SOURCES = [
  path.join(CONSOLE_ROOT, 'src'),
  path.join(CONSOLE_ROOT, '../shared/src'),
  path.join(CONSOLE_ROOT, 'vite.config.ts'),
  path.join(CONSOLE_ROOT, 'package.json'),
];

function newest(file: string): number {
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(file)) latest = Math.max(latest, newest(path.join(file, entry)));
  return latest;
}

/** Whether dist/ is missing or older than a source. */
export function consoleStale(): boolean {
  if (!existsSync(BUILT)) return true;
  const built = statSync(BUILT).mtimeMs;
  return SOURCES.some((source) => existsSync(source) && newest(source) > built);
}

/**
 * Builds the console when stale; answers whether it built. Built as it ships, in its own
 * process: under vitest NODE_ENV is "test", which would compile React for development.
 */
export function ensureConsoleBuilt(): boolean {
  if (!consoleStale()) return false;
  execFileSync('pnpm', ['--filter', '@locker/console', 'build'], {
    cwd: path.join(CONSOLE_ROOT, '..'),
    stdio: 'ignore',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  return true;
}
