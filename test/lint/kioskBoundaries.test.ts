import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@locker/server';

// The kiosk's boundaries are lint rules (eslint.config.js): each is checked here against
// an import that breaks it, linted as if it sat at the given path, and one that keeps it.
// Only the import rules are read (ESLint's, and @typescript-eslint's copy the server
// boundary uses); the type-aware rules need files on disk and are off.

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({
    cwd: REPO_ROOT,
    overrideConfig: [tseslint.configs.disableTypeChecked],
  });
});

/** The imports of `source` the boundary rules refuse, linted as the file at `filePath`. */
async function refused(filePath: string, ...sources: string[]): Promise<string[]> {
  const code = sources.map((s, i) => `import * as m${i} from '${s}';\nvoid m${i};\n`).join('');
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId?.endsWith('no-restricted-imports'))
    .map((m) => /^'([^']+)'/.exec(m.message)?.[1] ?? m.message);
}

describe('the kiosk’s import boundaries', () => {
  it('the renderer, at any depth, imports neither Node, the core, the hosts nor the server', async () => {
    const forbidden = [
      'node:fs',
      'fs',
      'path',
      'electron',
      'better-sqlite3',
      '@locker/lock-driver',
      '@locker/kiosk',
      '@locker/server',
      '@locker/server/testing',
    ];
    for (const file of [
      'kiosk/src/renderer/App.tsx',
      'kiosk/src/renderer/screens/Probe.tsx',
      'kiosk/src/renderer/parts/deeper/probe.ts',
      'kiosk/src/renderer/probe.test.ts',
    ]) {
      const up = '../'.repeat(file.split('/').length - 3);
      const inward = [`${up}core/kiosk`, `${up}core`, `${up}hosts/csp`, `${up}main/main`];
      // A test, even the renderer's, may start a server through the testing entry.
      const refusedHere = file.endsWith('.test.ts')
        ? forbidden.filter((f) => f !== '@locker/server/testing')
        : forbidden;
      expect(await refused(file, ...forbidden, ...inward)).toEqual([...refusedHere, ...inward]);
    }
    expect(
      await refused(
        'kiosk/src/renderer/screens/Probe.tsx',
        '../../bridge/api',
        '../bridge',
        'react',
        '@locker/shared',
      ),
    ).toEqual([]);
  });

  it('the core and hosts know neither React, Electron, the screen nor the server', async () => {
    expect(
      await refused(
        'kiosk/src/core/probe.ts',
        'react',
        'electron',
        '../renderer/kioskView',
        '@locker/server',
        '../../../server/src/server',
      ),
    ).toEqual([
      'react',
      'electron',
      '../renderer/kioskView',
      '@locker/server',
      '../../../server/src/server',
    ]);
    expect(await refused('kiosk/src/hosts/probe.ts', '@locker/server/testing')).toEqual([
      '@locker/server/testing',
    ]);
    expect(await refused('kiosk/src/main/probe.ts', '@locker/server')).toEqual(['@locker/server']);
    expect(
      await refused('kiosk/src/core/probe.ts', 'node:fs', '@locker/lock-driver', '../bridge/api'),
    ).toEqual([]);
  });

  it('the core’s tests start a server through its testing entry alone, never a path into it', async () => {
    expect(
      await refused(
        'kiosk/src/core/probe.test.ts',
        '@locker/server',
        '@locker/server/testing',
        '../../../server/test/harness',
        '../../../server/src/server',
        'react',
      ),
    ).toEqual([
      '@locker/server',
      '../../../server/test/harness',
      '../../../server/src/server',
      'react',
    ]);
  });
});
