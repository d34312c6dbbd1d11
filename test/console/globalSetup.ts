import { ensureConsoleBuilt } from '@locker/console/build';

/** The console, built once before any test file runs (when its sources are newer). */
export function setup(): void {
  ensureConsoleBuilt();
}
