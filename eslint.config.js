import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// The kiosk's boundaries, as no-restricted-imports patterns (docs/decisions.md).
const NODE_BUILTINS = builtinModules.filter((m) => !m.startsWith('_'));
const only = (message) => (name) => ({ name, message });
/** The core runs under plain Node in two hosts: no React, no Electron, no screen. */
const CORE_NOT_SCREEN = [
  {
    group: ['react', 'react-dom', 'react-i18next', 'electron'],
    message: 'the core runs under plain Node and knows neither React nor Electron',
  },
  { regex: '^(\\.\\./)+renderer(/|$)', message: 'the core never imports the screen' },
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.data/**',
      'eslint.config.js',
      '**/bin/*.mjs',
      // The bench's Node preloads: plain JavaScript, outside the TypeScript project.
      'server/bench/peak/*.mjs',
      'kiosk/vite.config.ts',
      'console/vite.config.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.json', './console/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Process boundaries of the kiosk: the renderer runs sandboxed with no Node, the core
    // runs under plain Node in two hosts and knows neither React nor Electron.
    files: ['kiosk/src/renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...NODE_BUILTINS, 'electron', 'better-sqlite3'].map(
            only('the renderer has no Node'),
          ),
          patterns: [
            { group: ['node:*'], message: 'the renderer has no Node' },
            {
              group: [
                '@locker/lock-driver',
                '@locker/lock-driver/*',
                '@locker/kiosk',
                '@locker/kiosk/*',
              ],
              message: 'the renderer reaches the core only through the bridge (bridge/api.ts)',
            },
            {
              // From any depth of the renderer: ../core, ../../core/kiosk, ../../hosts/csp, ...
              regex: '^(\\.\\./)+(core|hosts|main|preload)(/|$)',
              message: 'the renderer reaches the core only through the bridge (bridge/api.ts)',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['kiosk/src/core/**/*.ts', 'kiosk/src/hosts/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: CORE_NOT_SCREEN }],
    },
  },
  {
    // The kiosk talks to the server over HTTP only: its code never imports the server.
    // (@typescript-eslint's copy of no-restricted-imports, so that this rule adds to the
    // kiosk's process-boundary blocks above instead of replacing their options.)
    files: ['kiosk/**/*.{ts,tsx}'],
    ignores: ['kiosk/**/*.test.{ts,tsx}', 'kiosk/bench/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@locker/server',
                '@locker/server/*',
                '**/server/src/**',
                '**/server/test/**',
                '**/server/bench/**',
              ],
              message:
                'The kiosk reaches the server over HTTP only (its tests: @locker/server/testing).',
            },
          ],
        },
      ],
    },
  },
  {
    // The kiosk's tests and benchmark start a server through its testing entry alone.
    files: ['kiosk/**/*.test.{ts,tsx}', 'kiosk/bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@locker/server',
              message: 'Kiosk tests use the server through @locker/server/testing only.',
            },
          ],
          patterns: [
            {
              group: [
                '@locker/server/*',
                '!@locker/server/testing',
                '**/server/src/**',
                '**/server/test/**',
                '**/server/bench/**',
              ],
              message: 'Kiosk tests use the server through @locker/server/testing only.',
            },
          ],
        },
      ],
    },
  },
  {
    // The operator console runs in a browser and talks to the server over /ops/v1 only:
    // no Node, no server code, no kiosk or driver code; shapes come from @locker/shared.
    files: ['console/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: NODE_BUILTINS.map(only('the console runs in a browser: no Node')),
          patterns: [
            { group: ['node:*'], message: 'the console runs in a browser: no Node' },
            {
              group: [
                '@locker/server',
                '@locker/server/*',
                '**/server/src/**',
                '**/server/test/**',
              ],
              message: 'The console reaches the server over /ops/v1 only (shapes: @locker/shared).',
            },
            {
              group: [
                '@locker/kiosk',
                '@locker/kiosk/*',
                '@locker/lock-driver',
                '@locker/lock-driver/*',
              ],
              message: 'The console knows kiosks only through the server.',
            },
          ],
        },
      ],
    },
  },
  {
    // The server's rules (server/src/domain) know nothing of how they are reached or
    // stored: no HTTP, no route module, no database, log or outbound message. They return
    // outcomes; the routes turn them into problems and the callers do the I/O.
    files: ['server/src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['koa', '@koa/*', '**/http', '**/http/**'],
              message: 'domain/ returns outcomes; the routes turn them into HTTP problems.',
            },
            {
              group: [
                '**/terminal',
                '**/terminal/**',
                '**/merchant',
                '**/merchant/**',
                '**/sandbox',
                '**/sandbox/**',
                '**/openapi',
                '**/openapi/**',
                '**/webhooks',
                '**/webhooks/**',
                '**/app',
                '**/server',
              ],
              message: 'domain/ holds rules: the interfaces call it, never the other way round.',
            },
            {
              group: [
                'postgres',
                '**/db/**',
                '**/shipments/**',
                '**/services',
                '**/logger',
                '**/outbox/**',
                '**/sms/**',
                '**/notices/**',
                '**/ops/**',
              ],
              message:
                'domain/ has no I/O (the read model in shipments/ queries): its callers read, write and send.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read answers as the raw JSON a client would see; typing each one adds nothing.
    files: ['**/*.test.ts', '**/test/**/*.ts', '**/bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // A vitest worker loads a module once for all its files (vitest.config.ts, `isolate:
    // false`): a hook a helper registers when it loads belongs to the first file that
    // imports it, and the later files' cleanups never run. Helpers register hooks from
    // a function each test file calls (`useTestServer()`), or per test (`onTestFinished`).
    files: ['**/*.{ts,tsx}'],
    ignores: ['**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'Program > ExpressionStatement > CallExpression[callee.name=/^(before|after)(Each|All)$/]',
          message:
            'A hook registered when a helper loads runs for the first test file of a worker only: register it from a function the test file calls.',
        },
      ],
    },
  },
);
