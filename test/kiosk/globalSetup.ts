import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The kiosk's renderer (and Electron's main and preload bundles), built once per test run
 * before any test file starts, into the folder the hosts serve (`kiosk/dist`). No test file
 * builds it again: a rebuild empties the folder, and a page loading from another file at
 * that moment would fail.
 *
 * Built as it ships, in its own process: under vitest NODE_ENV is "test", which would
 * compile JSX for React's development runtime.
 */
export async function setup(): Promise<void> {
  await promisify(execFile)('pnpm', ['--filter', '@locker/kiosk', 'build'], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_ENV: 'production' },
  });
}
