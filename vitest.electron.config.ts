import { defineConfig } from 'vitest/config';

/** `pnpm test:electron`: the Electron shell's tests, where Electron's binary is installed. */
export default defineConfig({
  test: {
    include: ['test/electron/**/*.electron.test.ts'],
    exclude: ['**/node_modules/**'],
    globalSetup: ['./server/test/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
  },
});
