import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

describe('better-sqlite3 as built for this Node', () => {
  it('never removes a per-object environment hook, which aborts Node 24 when the GC frees a statement', () => {
    // Node 24's ObjectWrap does, from its destructor, and CHECKs for a JS context that a GC
    // run from a platform task does not have. patches/better-sqlite3@12.11.1.patch gives
    // the addon the ObjectWrap of Node 20/22; an unpatched build for Node 24 imports this.
    const require = createRequire(import.meta.url);
    const addon = path.join(
      path.dirname(require.resolve('better-sqlite3/package.json')),
      'build/Release/better_sqlite3.node',
    );
    expect(readFileSync(addon).includes('_ZN4node28RemoveEnvironmentCleanupHook')).toBe(false);
    expect(new Database(':memory:').prepare('select 1 as one').get()).toEqual({ one: 1 });
  });
});
