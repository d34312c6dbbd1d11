import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@locker/server';

// vitest.config.ts runs a worker's files on one module cache (`isolate: false`): a hook a
// helper registers when it loads would serve the first file that imports it only. The
// rule against it (eslint.config.js) is checked here on text linted as if at a path.

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: REPO_ROOT, overrideConfig: [tseslint.configs.disableTypeChecked] });
});

async function hookErrors(filePath: string, code: string): Promise<number> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').length;
}

describe('test helpers and hooks', () => {
  it('refuses a hook registered when a helper loads, in any package, of any kind', async () => {
    for (const [file, hook] of [
      ['lock-driver/test/someHelper.ts', 'afterEach'],
      ['server/test/someHelper.ts', 'beforeAll'],
      ['test/kiosk/someFixture.ts', 'afterAll'],
      ['kiosk/src/testing.ts', 'beforeEach'],
    ] as const)
      expect(
        await hookErrors(file, `import { ${hook} } from 'vitest';\n${hook}(() => undefined);\n`),
        `${hook} in ${file}`,
      ).toBe(1);
  });

  it('allows hooks in test files, and a helper that registers them when called', async () => {
    const atLoad = `import { afterEach } from 'vitest';\nafterEach(() => undefined);\n`;
    expect(await hookErrors('lock-driver/test/faults.test.ts', atLoad)).toBe(0);
    const onCall = [
      `import { afterAll, onTestFinished } from 'vitest';`,
      `export function useThing() { afterAll(() => undefined); }`,
      `export function afterThisTest() { onTestFinished(() => undefined); }`,
      '',
    ].join('\n');
    expect(await hookErrors('server/test/someHelper.ts', onCall)).toBe(0);
  });
});
