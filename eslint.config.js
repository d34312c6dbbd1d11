import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// The kiosk's boundaries, as no-restricted-imports patterns (docs/decisions.md).
const NODE_BUILTINS = builtinModules.filter((m) => !m.startsWith('_'));
const only = (message) => (name) => ({ name, message });
/** The kiosk ships without the server: only its tests start one. */
const KIOSK_NOT_SERVER = [
  {
    group: ['@locker/server', '@locker/server/*'],
    message: 'the kiosk talks to the server over HTTP only; its tests use @locker/server/testing',
  },
];
/** Never a relative path into another package's files, whatever the depth. */
const SERVER_BY_PACKAGE = [
  {
    regex: '^(\\.\\./)+server/',
    message:
      'reach the server through its package entries (@locker/server, @locker/server/testing)',
  },
];
/** The core runs under plain Node in two hosts: no React, no Electron, no screen. */
const CORE_NOT_SCREEN = [
  {
    group: ['react', 'react-dom', 'react-i18next', 'electron'],
    message: 'the core runs under plain Node and knows neither React nor Electron',
  },
  { regex: '^(\\.\\./)+renderer(/|$)', message: 'the core never imports the screen' },
];
const KIOSK_TESTS = ['kiosk/src/**/*.test.ts', 'kiosk/src/**/*.test.tsx'];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.data/**',
      'eslint.config.js',
      '**/bin/*.mjs',
      'kiosk/vite.config.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
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
            ...KIOSK_NOT_SERVER,
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
    ignores: KIOSK_TESTS,
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [...CORE_NOT_SCREEN, ...KIOSK_NOT_SERVER, ...SERVER_BY_PACKAGE] },
      ],
    },
  },
  {
    // The core's and hosts' tests may start a server, through the server's package entries.
    files: KIOSK_TESTS,
    ignores: ['kiosk/src/renderer/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...CORE_NOT_SCREEN, ...SERVER_BY_PACKAGE] }],
    },
  },
  {
    files: ['kiosk/src/{bridge,main,preload}/**/*.ts'],
    ignores: KIOSK_TESTS,
    rules: {
      'no-restricted-imports': ['error', { patterns: [...KIOSK_NOT_SERVER, ...SERVER_BY_PACKAGE] }],
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
);
