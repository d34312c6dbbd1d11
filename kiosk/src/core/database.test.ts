import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from './database';

describe('kiosk database migrations', () => {
  it('migrate, seed, migrate again: the version holds and no row is touched', () => {
    const db = new Database(':memory:');
    expect(migrate(db)).toBe(MIGRATIONS.length);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.prepare(
      'insert into confirms (kind, body, occurred_at, next_attempt_at, created_at) values (?, ?, ?, ?, ?)',
    ).run('door', '{"x":1}', '2026-11-22T10:00:00.000Z', 0, 0);
    migrate(db);
    expect(db.prepare('select kind, body from confirms').all()).toEqual([
      { kind: 'door', body: '{"x":1}' },
    ]);
    // STRICT tables refuse a value of the wrong type rather than storing it.
    expect(() =>
      db
        .prepare(
          'insert into confirms (kind, body, occurred_at, next_attempt_at, created_at) values (?, ?, ?, ?, ?)',
        )
        .run('door', '{}', 'x', 'soon', 0),
    ).toThrow();
    expect(() =>
      db
        .prepare(
          'insert into confirms (kind, body, occurred_at, next_attempt_at, created_at) values (?, ?, ?, ?, ?)',
        )
        .run('parcel', '{}', 'x', 0, 0),
    ).toThrow();
  });

  it('carries queued confirms across each migration that added a kind', () => {
    const db = new Database(':memory:');
    db.exec(MIGRATIONS[0]!);
    db.pragma('user_version = 1');
    const insert =
      'insert into confirms (kind, body, occurred_at, next_attempt_at, created_at) values (?, ?, ?, ?, ?)';
    db.prepare(insert).run('return', '{"returnId":"r"}', '2026-11-22T10:00:00.000Z', 5, 6);
    expect(() => db.prepare(insert).run('return_taken', '{}', 'x', 0, 0)).toThrow();
    expect(() => db.prepare(insert).run('deposit_undo', '{}', 'x', 0, 0)).toThrow();
    migrate(db);
    expect(db.prepare('select kind, body, next_attempt_at from confirms').all()).toEqual([
      { kind: 'return', body: '{"returnId":"r"}', next_attempt_at: 5 },
    ]);
    db.prepare(insert).run('return_taken', '{}', 'x', 0, 0);
    db.prepare(insert).run('deposit_undo', '{}', 'x', 0, 0);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
  });
});

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
