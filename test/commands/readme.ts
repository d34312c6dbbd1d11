/**
 * The commands the README prints, read from the README itself: every line of an indented
 * code block and every backticked cell of a table that starts with `pnpm `, with its
 * trailing `# comment` removed. A test runs each of them as printed.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from '@locker/server';

export function readmeCommands(file = path.join(REPO_ROOT, 'README.md')): string[] {
  const found: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('|')) {
      for (const [, cell] of line.matchAll(/`(pnpm [^`]+)`/g)) found.push(cell!.trim());
    } else if (/^ {4,}pnpm /.test(line)) {
      found.push(line.trim().replace(/\s+#\s.*$/, ''));
    }
  }
  return [...new Set(found)];
}

/** The words a shell makes of a command line, quotes honoured (bash does the parsing). */
export function shellWords(line: string): string[] {
  const out = execFileSync('bash', ['-c', `set -f; set -- ${line}; printf '%s\\0' "$@"`]);
  return out.toString().split('\0').slice(0, -1);
}

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Commands pnpm runs itself instead of a script of the same name (`pnpm server`!). */
export const PNPM_OWN_COMMANDS = [
  'add',
  'approve-builds',
  'audit',
  'bin',
  'cache',
  'cat-file',
  'cat-index',
  'config',
  'create',
  'dedupe',
  'deploy',
  'dlx',
  'doctor',
  'env',
  'exec',
  'fetch',
  'find-hash',
  'i',
  'ignored-builds',
  'import',
  'init',
  'install',
  'install-test',
  'it',
  'licenses',
  'link',
  'list',
  'ln',
  'ls',
  'outdated',
  'pack',
  'patch',
  'patch-commit',
  'patch-remove',
  'prune',
  'publish',
  'rb',
  'rebuild',
  'recursive',
  'remove',
  'rm',
  'root',
  'run',
  'self-update',
  'server',
  'setup',
  'store',
  'un',
  'uninstall',
  'unlink',
  'up',
  'update',
  'upgrade',
  'why',
];

/**
 * A signal to a whole process group (a detached child and all it started); nothing when
 * the group has gone meanwhile.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // no process of the group is left
  }
}
