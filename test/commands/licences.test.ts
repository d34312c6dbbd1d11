/**
 * `pnpm licence-check` (scripts/licences.ts): the installed production tree against the
 * licence of each workspace package. The real tree passes (and holds the GPL speech engine
 * under the kiosk, so the check sees what it must); made-up trees with a dependency a
 * package cannot take in fail, naming the package, the path and the licence.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@locker/server';
import { checkLicences, readTree, type PackageNode, type Tree } from '../../scripts/licences';

const run = promisify(execFile);

/** A tree of workspace packages (by name) and dependencies (by name@version, also their ids). */
function tree(
  workspaces: Record<string, string | undefined>,
  packages: Record<string, { licence: string | undefined; deps?: string[] }>,
  dependsOn: Record<string, string[]>,
  patched: string[] = [],
): Tree {
  const nodes: Record<string, PackageNode> = {};
  for (const [name, licence] of Object.entries(workspaces))
    nodes[name] = {
      name,
      version: '1.0.0',
      licence,
      workspace: true,
      installed: true,
      dependencies: dependsOn[name] ?? [],
    };
  for (const [key, p] of Object.entries(packages)) {
    const at = key.lastIndexOf('@');
    nodes[key] = {
      name: key.slice(0, at),
      version: key.slice(at + 1),
      licence: p.licence,
      workspace: false,
      installed: true,
      dependencies: p.deps ?? [],
    };
  }
  return { packages: nodes, workspaces: Object.keys(workspaces), patched };
}

const messages = (t: Tree) => checkLicences(t).violations.map((v) => v.message);

describe('the licence check on the installed tree', () => {
  const real = readTree(REPO_ROOT);

  it('passes, seeing every workspace package and the speech engine under the kiosk', () => {
    const { violations, summaries } = checkLicences(real);
    expect(violations).toEqual([]);
    const byName = Object.fromEntries(summaries.map((s) => [s.workspace, s]));
    expect(Object.keys(byName).sort()).toEqual([
      '@locker/console',
      '@locker/kiosk',
      '@locker/lock-driver',
      '@locker/server',
      '@locker/shared',
      '@locker/test',
      'parcel-locker',
    ]);
    expect(byName['@locker/kiosk']!.licence).toBe('GPL-3.0-or-later');
    // The operator console ships in the server's licence: nothing copyleft in its bundle.
    expect(byName['@locker/console']!.licence).toBe('Apache-2.0');
    expect(Object.keys(byName['@locker/console']!.licences)).not.toContain('GPL-3.0');
    expect(byName['@locker/kiosk']!.licences['GPL-3.0']).toBe(1);
    expect(byName['@locker/server']!.licence).toBe('Apache-2.0');
    expect(byName['@locker/server']!.readByHand).toEqual([
      'dejavu-fonts-ttf@2.37.3 (Bitstream-Vera)',
    ]);
    const serverCount = Object.values(byName['@locker/server']!.licences).reduce((a, b) => a + b);
    expect(serverCount).toBeGreaterThan(50);
  });

  it('fails when the kiosk is Apache-2.0, naming the GPL speech engine and its path', () => {
    const relicensed = structuredClone(real);
    const kiosk = Object.values(relicensed.packages).find((p) => p.name === '@locker/kiosk')!;
    kiosk.licence = 'Apache-2.0';
    expect(messages(relicensed)).toEqual([
      '@locker/kiosk (Apache-2.0) takes in @echogarden/espeak-ng-emscripten@0.3.5: GPL-3.0, not allowed under Apache-2.0',
    ]);
  });
});

describe('the licence check on made-up trees', () => {
  it('refuses a GPL dependency under an Apache-2.0 package, naming the path that brings it in', () => {
    const t = tree(
      { '@x/server': 'Apache-2.0' },
      {
        'pdf@1.0.0': { licence: 'MIT', deps: ['fonts@2.0.0'] },
        'fonts@2.0.0': { licence: 'ISC', deps: ['shaper@3.1.0'] },
        'shaper@3.1.0': { licence: 'GPL-3.0-only' },
      },
      { '@x/server': ['pdf@1.0.0'] },
    );
    const { violations } = checkLicences(t);
    expect(violations).toEqual([
      {
        workspace: '@x/server',
        path: ['@x/server', 'pdf@1.0.0', 'fonts@2.0.0', 'shaper@3.1.0'],
        message:
          '@x/server (Apache-2.0) takes in pdf@1.0.0 → fonts@2.0.0 → shaper@3.1.0: GPL-3.0-only, not allowed under Apache-2.0',
      },
    ]);
  });

  it('takes GPL-3.0 and what combines with it under the GPL-3.0-or-later kiosk', () => {
    const t = tree(
      { '@x/kiosk': 'GPL-3.0-or-later' },
      {
        'speech@1.0.0': { licence: 'GPL-3.0', deps: ['lgpl@1.0.0', 'gpl2plus@1.0.0'] },
        'lgpl@1.0.0': { licence: 'LGPL-2.1-only' },
        'gpl2plus@1.0.0': { licence: 'GPL-2.0-or-later' },
        'gpl3plus@1.0.0': { licence: 'GPL-3.0-or-later' },
      },
      { '@x/kiosk': ['speech@1.0.0', 'gpl3plus@1.0.0'] },
    );
    expect(messages(t)).toEqual([]);
  });

  it('refuses GPL-2.0-only under the kiosk: it cannot combine with GPL-3.0', () => {
    const t = tree(
      { '@x/kiosk': 'GPL-3.0-or-later' },
      { 'old@1.0.0': { licence: 'GPL-2.0-only' } },
      { '@x/kiosk': ['old@1.0.0'] },
    );
    expect(messages(t)).toEqual([
      '@x/kiosk (GPL-3.0-or-later) takes in old@1.0.0: GPL-2.0-only, not allowed under GPL-3.0-or-later',
    ]);
  });

  it('reads SPDX expressions: a choice with a permissive licence passes, a conjunction does not', () => {
    const t = tree(
      { '@x/shared': 'Apache-2.0' },
      {
        'either@1.0.0': { licence: '(GPL-3.0-only OR MIT)' },
        'both@1.0.0': { licence: 'GPL-3.0-only AND MIT' },
      },
      { '@x/shared': ['either@1.0.0', 'both@1.0.0'] },
    );
    expect(messages(t)).toEqual([
      '@x/shared (Apache-2.0) takes in both@1.0.0: GPL-3.0-only AND MIT, not allowed under Apache-2.0',
    ]);
  });

  it('refuses a licence it cannot read, and a package without one', () => {
    const t = tree(
      { '@x/server': 'Apache-2.0', '@x/nameless': undefined },
      {
        'custom@1.0.0': { licence: 'SEE LICENSE IN LICENSE.txt' },
        'silent@1.0.0': { licence: undefined },
      },
      { '@x/server': ['custom@1.0.0', 'silent@1.0.0'] },
    );
    expect(messages(t)).toEqual([
      '@x/server (Apache-2.0) takes in custom@1.0.0: "SEE LICENSE IN LICENSE.txt" is no SPDX expression: read its licence and add it to READ_BY_HAND in scripts/licences.ts',
      '@x/server (Apache-2.0) takes in silent@1.0.0: it declares no licence',
      '@x/nameless declares no licence ("license" in its package.json)',
    ]);
  });

  it('refuses the GPL kiosk as a dependency of an Apache-2.0 package', () => {
    const t = tree(
      { '@x/server': 'Apache-2.0', '@x/kiosk': 'GPL-3.0-or-later' },
      {},
      { '@x/server': ['@x/kiosk'] },
    );
    expect(messages(t)).toEqual([
      '@x/server (Apache-2.0) takes in @x/kiosk: GPL-3.0-or-later, not allowed under Apache-2.0',
    ]);
  });

  it('takes MPL-2.0 as published, not patched', () => {
    const deps = { 'mpl@1.0.0': { licence: 'MPL-2.0' } };
    const uses = { '@x/server': ['mpl@1.0.0'] };
    expect(messages(tree({ '@x/server': 'Apache-2.0' }, deps, uses))).toEqual([]);
    expect(messages(tree({ '@x/server': 'Apache-2.0' }, deps, uses, ['mpl@1.0.0']))).toEqual([
      '@x/server (Apache-2.0) takes in mpl@1.0.0: MPL-2.0, not allowed under Apache-2.0 for a patched dependency',
    ]);
  });
});

describe('pnpm licence-check', () => {
  let folder: string;
  beforeAll(async () => {
    // A workspace of its own, installed offline: an Apache-2.0 package with a GPL local
    // library and a GPL workspace package as production dependencies.
    folder = mkdtempSync(path.join(tmpdir(), 'locker-licences-'));
    const write = (file: string, json: object) => {
      mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
      writeFileSync(path.join(folder, file), JSON.stringify(json));
    };
    writeFileSync(path.join(folder, 'pnpm-workspace.yaml'), 'packages:\n  - app\n  - speech\n');
    write('package.json', { name: 'fake', private: true, license: 'Apache-2.0' });
    write('app/package.json', {
      name: '@fake/app',
      version: '1.0.0',
      license: 'Apache-2.0',
      dependencies: { '@fake/speech': 'workspace:*', 'gpl-lib': 'file:../vendor/gpl-lib' },
    });
    write('speech/package.json', {
      name: '@fake/speech',
      version: '1.0.0',
      license: 'GPL-3.0-or-later',
    });
    write('vendor/gpl-lib/package.json', {
      name: 'gpl-lib',
      version: '2.0.0',
      license: 'GPL-3.0-only',
    });
    await run('pnpm', ['install', '--offline'], { cwd: folder });
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('passes on this repository', async () => {
    const { stdout } = await run('pnpm', ['licence-check'], { cwd: REPO_ROOT });
    expect(stdout).toMatch(/^@locker\/kiosk \(GPL-3\.0-or-later\): \d+ production dependencies: /m);
    expect(stdout.trim().split('\n').at(-1)).toBe(
      'licences: every production dependency fits the licence of its package',
    );
  });

  it('fails on a workspace whose Apache-2.0 package takes in GPL code, saying what and where', async () => {
    const failed = await run('pnpm', ['licence-check', folder], { cwd: REPO_ROOT }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(
      'error: @fake/app (Apache-2.0) takes in @fake/speech: GPL-3.0-or-later, not allowed under Apache-2.0\n' +
        'error: @fake/app (Apache-2.0) takes in gpl-lib@file:vendor/gpl-lib: GPL-3.0-only, not allowed under Apache-2.0\n' +
        'licences: 2 production dependencies do not fit the licence of their package',
    );
  });
});
