import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@locker/server';

/** Where the tests' photographs of screens go (ignored by git). */
const SCREENS = path.join(REPO_ROOT, 'test-results/screens');
/** The photographs the README shows. */
const DOCS = path.join(REPO_ROOT, 'docs/screenshots');

/**
 * The file for a screen's photograph, under `test-results/screens/`. A test run never
 * writes into the tree's tracked files: a photograph the README shows is copied into
 * `docs/screenshots/` only when asked, `UPDATE_SCREENSHOTS=1 pnpm test <file>`, after a
 * change to that screen (README, "Commands").
 */
export function screenFile(name: string): string {
  mkdirSync(SCREENS, { recursive: true });
  return path.join(SCREENS, name);
}

/** A photograph taken with `screenFile` that the README shows: kept there when asked. */
export function forTheReadme(file: string): void {
  if (process.env.UPDATE_SCREENSHOTS === '1')
    copyFileSync(file, path.join(DOCS, path.basename(file)));
}
