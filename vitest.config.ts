import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{shared,server,lock-driver,kiosk,console,test}/**/*.test.{ts,tsx}'],
    // Electron's own tests need its binary: `pnpm test:electron` (vitest.electron.config.ts).
    exclude: ['**/node_modules/**', '**/*.electron.test.ts'],
    // PostgreSQL for every file; the kiosk's renderer built once, before any file runs.
    globalSetup: [
      './server/test/globalSetup.ts',
      './test/kiosk/globalSetup.ts',
      './test/console/globalSetup.ts',
    ],
    // Hang detectors, not speed checks. Most tests take under 6 s on an idle machine; the
    // longest run real commands (`pnpm start` ≈16 s, lockctl over TCP ≈14 s; those set
    // their own limits where they need more), and CI may share its two cores.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits for a condition: 1 s (its default) is a timing bet under load.
    expect: { poll: { timeout: 20_000 } },
    // Two cores: two files at a time, each on its own database.
    maxWorkers: 2,
    // A worker's files share its loaded modules: a server test file spent ≈2 s evaluating
    // the server's 600 modules again (292 s of import in a CI run, 27 s without). Each file
    // still has its own database, server and kiosk; module state is only caches keyed by
    // what they hold (docs/decisions.md, "CI").
    isolate: false,
    // A global a test stubs is put back after it, even when the test fails before its own
    // `vi.unstubAllGlobals()`: the next file in the worker would see it otherwise.
    unstubGlobals: true,
  },
});
