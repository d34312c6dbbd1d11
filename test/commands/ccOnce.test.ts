/**
 * scripts/cc-once.sh, the C compiler of the Node lines' native builds in CI: a compile
 * another line already made is taken from it, but only when the compiler would have made
 * the same object (the same source after the preprocessor, the same flags); anything else
 * is compiled. A wrong hit would put one line's object into another's build unseen.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@locker/server';

const run = promisify(execFile);
const CC_ONCE = path.join(REPO_ROOT, 'scripts/cc-once.sh');
let work: string;
let objects: string;

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'cc-once-'));
  objects = path.join(work, 'objects');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A build folder with one.c, which reads X from inc/h.h and Y from the command line. */
function folder(name: string, x = 7): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'inc'), { recursive: true });
  writeFileSync(path.join(dir, 'inc/h.h'), `#define X ${x}\n`);
  writeFileSync(path.join(dir, 'one.c'), '#include "h.h"\nint f(void) { return X + Y; }\n');
  return dir;
}

/** Compiles one.c in `dir` as gyp's make does; answers what cc-once said and the object. */
async function compile(dir: string, flags: string[], cache: string | null = objects) {
  const env = { ...process.env, CC_ONCE_DIR: cache ?? '' };
  const { stderr } = await run(
    CC_ONCE,
    ['-o', 'one.o', 'one.c', ...flags, '-MMD', '-MF', 'one.o.d.raw', '-c'],
    { cwd: dir, env },
  );
  return {
    taken: stderr.includes('cc-once: one.o from'),
    object: readFileSync(path.join(dir, 'one.o')),
    deps: readFileSync(path.join(dir, 'one.o.d.raw'), 'utf8'),
  };
}

describe('cc-once', () => {
  it('compiles once what the preprocessor and the flags make the same, in another build', async () => {
    const a = folder('a');
    const b = folder('b');
    // Line one: compiled. For line two, a define nothing reads and an include folder
    // nothing is taken from differ (Node's headers, for SQLite's amalgamation).
    const first = await compile(a, ['-DY=1', '-DUNUSED=22', '-I/opt/node-22/include', '-Iinc']);
    expect(first.taken).toBe(false);
    const second = await compile(b, ['-DY=1', '-DUNUSED=24', '-I/opt/node-24/include', '-Iinc']);
    expect(second.taken).toBe(true);
    expect(second.object.equals(first.object)).toBe(true);
    expect(readdirSync(objects).filter((f) => f.endsWith('.o'))).toHaveLength(1);
    // The dependencies are this build's own.
    expect(second.deps).toBe('one.o: one.c inc/h.h\n');
  });

  it('compiles again when a define the source reads, a header or a flag differs', async () => {
    const c = folder('c');
    const base = await compile(c, ['-DY=1', '-Iinc', '-O1']);
    const define = await compile(c, ['-DY=2', '-Iinc', '-O1']);
    expect(define.taken).toBe(false);
    expect(define.object.equals(base.object)).toBe(false);
    const header = await compile(folder('d', 8), ['-DY=1', '-Iinc', '-O1']);
    expect(header.taken).toBe(false);
    const optimised = await compile(c, ['-DY=1', '-Iinc', '-O2']);
    expect(optimised.taken).toBe(false);
    // Without a folder to keep objects in, it is the compiler and nothing more.
    const plain = await compile(folder('e'), ['-DY=1', '-Iinc', '-O1'], null);
    expect(plain.taken).toBe(false);
  });

  it('passes a link straight to the compiler', async () => {
    const dir = path.join(work, 'link');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'main.c'), 'int main(void) { return 3; }\n');
    await run(CC_ONCE, ['-o', 'main', 'main.c'], {
      cwd: dir,
      env: { ...process.env, CC_ONCE_DIR: objects },
    });
    const exit = await run(path.join(dir, 'main')).then(
      () => 0,
      (error: { code: number }) => error.code,
    );
    expect(exit).toBe(3);
  });
});
