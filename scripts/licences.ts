/**
 * `pnpm licence-check`: every production dependency of every workspace package, as
 * installed, against the licences that package's own licence can take in (see "Licences"
 * in docs/decisions.md). Each dependency a package cannot take in is named with the path
 * that brings it in and its licence, and the exit status is 1.
 *
 * pnpm reads the installed tree (`pnpm list`) and each package's licence (`pnpm licenses`,
 * which also reads LICENSE files); spdx-satisfies judges an SPDX expression (`MIT OR
 * Apache-2.0`) against an allow-list. Development dependencies are not checked: they are
 * not shipped. The kiosk's `dependencies` are, bundled into its renderer or not.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import satisfies from 'spdx-satisfies';

/** Permissive licences, and CC-BY-4.0 for data: any package may take them in. */
const PERMISSIVE = [
  'MIT',
  'ISC',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'Apache-2.0',
  '0BSD',
  'BlueOak-1.0.0',
  'CC0-1.0',
  'Unlicense',
  'PostgreSQL',
  'Python-2.0',
  'CC-BY-4.0',
  'Bitstream-Vera',
];

/**
 * MPL-2.0 is copyleft per file: used as published it leaves our code alone, but a patch of
 * ours to such a package (pnpm.patchedDependencies) would have to be published under it.
 */
const FILE_COPYLEFT = ['MPL-2.0'];

/**
 * Licences GPL-3.0 code may combine with (LGPL-2.1 converts to GPL). Each allowed version
 * is named exactly: a dependency's "-or-later" licence fits when its range holds one of
 * them (GPL-2.0-or-later does, through 3.0); GPL-2.0-only fits none.
 */
const GPL3_COMPATIBLE = [
  ...PERMISSIVE,
  ...FILE_COPYLEFT,
  'LGPL-2.1-only',
  'LGPL-3.0-only',
  'GPL-3.0-only',
];

export interface Policy {
  /** Licences of dependencies used as published. */
  accepts: string[];
  /** Licences of dependencies we patch. */
  patched: string[];
}

/** What a workspace package may take in, by its own licence. */
export const POLICIES: Record<string, Policy> = {
  'Apache-2.0': { accepts: [...PERMISSIVE, ...FILE_COPYLEFT], patched: PERMISSIVE },
  'GPL-3.0-or-later': { accepts: GPL3_COMPATIBLE, patched: GPL3_COMPATIBLE },
};

/**
 * Packages whose declared licence is no SPDX expression, read by hand, by name@version (a
 * new version is read again).
 */
export const READ_BY_HAND: Record<string, { licence: string; why: string }> = {
  'dejavu-fonts-ttf@2.37.3': {
    licence: 'Bitstream-Vera',
    why: 'declares "SEE LICENSE IN README.md AND LICENSE": Bitstream Vera\'s font licence (the Arev glyphs under the same terms, DejaVu\'s changes public domain): permissive, the fonts may be embedded and redistributed',
  },
};

export interface PackageNode {
  name: string;
  version: string;
  /** As declared: a workspace package's package.json, else as pnpm reads it. */
  licence: string | undefined;
  workspace: boolean;
  /** false: an optional dependency for another platform (fsevents), not installed here. */
  installed: boolean;
  /** Ids (install folders) of its production dependencies. */
  dependencies: string[];
}

export interface Tree {
  /** By id: the folder the package is installed in. */
  packages: Record<string, PackageNode>;
  /** Ids of the workspace packages (the root included). */
  workspaces: string[];
  /** name@version of the packages pnpm patches. */
  patched: string[];
}

export interface Violation {
  workspace: string;
  /** From the workspace package to the dependency, as name@version. */
  path: string[];
  message: string;
}

export interface Summary {
  workspace: string;
  licence: string | undefined;
  /** Count of production dependencies by (effective) licence. */
  licences: Record<string, number>;
  readByHand: string[];
  notInstalled: string[];
}

const label = (p: PackageNode) => (p.workspace ? p.name : `${p.name}@${p.version}`);

/** How `licence` fails the approved licences, or undefined when it fits. */
function misfit(
  licence: string | undefined,
  approved: string[],
): 'none' | 'not SPDX' | 'refused' | undefined {
  if (!licence) return 'none';
  try {
    return satisfies(licence, approved) ? undefined : 'refused';
  } catch {
    return 'not SPDX';
  }
}

/** Every production dependency of every workspace package against that package's policy. */
export function checkLicences(tree: Tree): { violations: Violation[]; summaries: Summary[] } {
  const violations: Violation[] = [];
  const summaries: Summary[] = [];
  for (const rootId of tree.workspaces) {
    const root = tree.packages[rootId]!;
    const policy = root.licence ? POLICIES[root.licence] : undefined;
    const summary: Summary = {
      workspace: root.name,
      licence: root.licence,
      licences: {},
      readByHand: [],
      notInstalled: [],
    };
    summaries.push(summary);
    if (!policy) {
      violations.push({
        workspace: root.name,
        path: [root.name],
        message: `${root.name} ${root.licence ? `is ${root.licence}, a licence with no policy in scripts/licences.ts (${Object.keys(POLICIES).join(', ')})` : 'declares no licence ("license" in its package.json)'}`,
      });
      continue;
    }
    // Breadth first: each dependency is named with the shortest path that brings it in.
    const via = new Map<string, string | undefined>([[rootId, undefined]]);
    const queue = [rootId];
    while (queue.length > 0) {
      const id = queue.shift()!;
      for (const next of tree.packages[id]!.dependencies) {
        if (via.has(next)) continue;
        via.set(next, id);
        queue.push(next);
      }
    }
    for (const [id] of via) {
      if (id === rootId) continue;
      const dependency = tree.packages[id]!;
      if (!dependency.installed) {
        summary.notInstalled.push(label(dependency));
        continue;
      }
      const key = `${dependency.name}@${dependency.version}`;
      const byHand = dependency.workspace ? undefined : READ_BY_HAND[key];
      if (byHand) summary.readByHand.push(`${key} (${byHand.licence})`);
      const licence = byHand?.licence ?? dependency.licence;
      summary.licences[licence ?? 'none'] = (summary.licences[licence ?? 'none'] ?? 0) + 1;
      const patched = tree.patched.includes(key);
      const why = misfit(licence, patched ? policy.patched : policy.accepts);
      if (!why) continue;
      const chain: string[] = [];
      for (let at: string | undefined = id; at !== undefined; at = via.get(at))
        chain.unshift(label(tree.packages[at]!));
      violations.push({
        workspace: root.name,
        path: chain,
        message: `${root.name} (${root.licence}) takes in ${chain.slice(1).join(' → ')}: ${
          why === 'none'
            ? 'it declares no licence'
            : why === 'not SPDX'
              ? `"${licence}" is no SPDX expression: read its licence and add it to READ_BY_HAND in scripts/licences.ts`
              : `${licence}, not allowed under ${root.licence}${patched ? ' for a patched dependency' : ''}`
        }`,
      });
    }
  }
  return { violations, summaries };
}

interface ListNode {
  version: string;
  path: string;
  deduped?: boolean;
  dedupedDependenciesCount?: number;
  dependencies?: Record<string, ListNode>;
}

interface ListProject {
  name: string;
  path: string;
  dependencies?: Record<string, ListNode>;
}

interface Manifest {
  name?: string;
  version?: string;
  license?: unknown;
  pnpm?: { patchedDependencies?: Record<string, string> };
}

function readJson(file: string): Manifest {
  return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
}

/** pnpm's JSON answer; `empty` when it answers in words that there is nothing to list. */
function pnpmJson(root: string, args: string[], empty: unknown): unknown {
  const out = execFileSync('pnpm', args, {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return /^\s*[[{]/.test(out) ? JSON.parse(out) : empty;
}

/** The installed production tree of the workspace at `root`, as pnpm reads it. */
export function readTree(root: string): Tree {
  const projects = pnpmJson(
    root,
    ['list', '--recursive', '--prod', '--json', '--depth', 'Infinity'],
    [],
  ) as ListProject[];
  const listed = pnpmJson(
    root,
    ['licenses', 'list', '--recursive', '--prod', '--json'],
    {},
  ) as Record<string, { name: string; versions: string[]; license: string }[]>;
  const licences = new Map<string, string>();
  for (const entries of Object.values(listed))
    for (const entry of entries)
      for (const version of entry.versions) licences.set(`${entry.name}@${version}`, entry.license);

  const packages: Record<string, PackageNode> = {};
  const workspaceNode = (dir: string): PackageNode => {
    const manifest = readJson(path.join(dir, 'package.json'));
    return {
      name: manifest.name ?? dir,
      version: manifest.version ?? '0.0.0',
      licence: typeof manifest.license === 'string' ? manifest.license : undefined,
      workspace: true,
      installed: true,
      dependencies: [],
    };
  };
  const deduped: [string, ListNode][] = [];
  const visit = (id: string, children: Record<string, ListNode> | undefined) => {
    for (const [name, child] of Object.entries(children ?? {})) {
      const childId = child.path;
      if (!packages[childId]) {
        const workspace = child.version.startsWith('link:');
        const installed = existsSync(childId);
        let licence = licences.get(`${name}@${child.version}`);
        if (!licence && installed && !workspace) {
          const declared = readJson(path.join(childId, 'package.json')).license;
          licence = typeof declared === 'string' ? declared : undefined;
        }
        packages[childId] = workspace
          ? workspaceNode(childId)
          : { name, version: child.version, licence, workspace, installed, dependencies: [] };
      }
      const deps = packages[id]!.dependencies;
      if (!deps.includes(childId)) deps.push(childId);
      if (child.dependencies) visit(childId, child.dependencies);
      else if (child.deduped && (child.dedupedDependenciesCount ?? 0) > 0)
        deduped.push([name, child]);
    }
  };
  const workspaces: string[] = [];
  for (const project of projects) {
    packages[project.path] ??= workspaceNode(project.path);
    workspaces.push(project.path);
  }
  for (const project of projects) visit(project.path, project.dependencies);
  // pnpm lists the dependencies of a package once; its other places say "deduped".
  for (const [name, child] of deduped) {
    if (packages[child.path]!.dependencies.length === 0)
      throw new Error(`pnpm list left out the dependencies of ${name}@${child.version}`);
  }

  const rootManifest = readJson(path.join(root, 'package.json'));
  return {
    packages,
    workspaces,
    patched: Object.keys(rootManifest.pnpm?.patchedDependencies ?? {}),
  };
}

/** `pnpm licence-check [WORKSPACE]`: this repository's workspace by default. */
function main(): void {
  const root = path.resolve(
    process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'),
  );
  const { violations, summaries } = checkLicences(readTree(root));
  for (const s of summaries) {
    const counts = Object.entries(s.licences)
      .sort((a, b) => b[1] - a[1])
      .map(([licence, n]) => `${licence} ${n}`);
    const total = Object.values(s.licences).reduce((a, b) => a + b, 0);
    console.log(
      `${s.workspace} (${s.licence ?? 'no licence'}): ${total} production dependencies${counts.length ? `: ${counts.join(', ')}` : ''}`,
    );
    if (s.readByHand.length) console.log(`  read by hand: ${s.readByHand.join(', ')}`);
    if (s.notInstalled.length)
      console.log(
        `  not installed on this platform (optional), not checked: ${s.notInstalled.length} (${s.notInstalled.slice(0, 2).join(', ')}, …)`,
      );
  }
  if (violations.length === 0) {
    console.log('licences: every production dependency fits the licence of its package');
    return;
  }
  for (const v of violations) console.error(`error: ${v.message}`);
  console.error(
    `licences: ${violations.length} production ${violations.length === 1 ? 'dependency does' : 'dependencies do'} not fit the licence of their package (see "Licences" in docs/decisions.md)`,
  );
  process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
