import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{shared,server,lock-driver,kiosk,test}/**/*.test.{ts,tsx}'],
    exclude: ['**/node_modules/**'],
    globalSetup: ['./server/test/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: two files at a time, each on its own database.
    maxWorkers: 2,
  },
});
