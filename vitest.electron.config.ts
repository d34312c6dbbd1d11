import { defineConfig } from 'vitest/config';

/** `pnpm test:electron`: the Electron shell's tests, where Electron's binary is installed. */
export default defineConfig({
  test: {
    include: ['test/electron/**/*.electron.test.ts'],
    exclude: ['**/node_modules/**'],
    // PostgreSQL for every file; the kiosk's renderer built once, before any file runs.
    globalSetup: ['./server/test/globalSetup.ts', './test/kiosk/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
  },
});
