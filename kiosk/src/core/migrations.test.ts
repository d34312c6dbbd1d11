import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrate } from './database';
import { MIGRATIONS } from './migrations';

const INSERT =
  'insert into confirms (kind, body, occurred_at, next_attempt_at, created_at) values (?, ?, ?, ?, ?)';

/** A fresh database that has run migrations 1 to `version`. */
function at(version: number) {
  const db = new Database(':memory:');
  migrate(db, version);
  expect(db.pragma('user_version', { simple: true })).toBe(version);
  return db;
}

const kindsAllowed = (db: Database.Database, kinds: string[]) =>
  kinds.filter((kind) => {
    try {
      db.transaction(() => {
        db.prepare(INSERT).run(kind, '{}', 'x', 0, 0);
        throw new Error('rollback');
      })();
    } catch (error) {
      return (error as Error).message === 'rollback';
    }
    return false;
  });

const ALL_KINDS = [
  'door',
  'return',
  'return_taken',
  'deposit_undo',
  'door_fault',
  'door_event',
  'cabinet_event',
  'offline_deposit',
  'parcel',
];

describe('kiosk migrations, one by one', () => {
  it('are fixed SQL: a migration that shipped never changes', () => {
    // Editing a shipped migration would leave databases that ran the old text behind.
    const digests = MIGRATIONS.map((sql) =>
      createHash('sha256').update(sql).digest('hex').slice(0, 16),
    );
    expect(digests).toEqual([
      '6a4d2011c4d92e1f',
      'f8965bda83983513',
      '878851014aca260a',
      '9bcfa0095db23a36',
      '4d32bdd0638d24df',
      '58cc327370dfcbba',
      '0f3b3c3eaf41fb1a',
      '282861aea226964a',
    ]);
  });

  it('1 creates the queue for door and return confirms, strict, and the stuck table', () => {
    const db = at(1);
    expect(kindsAllowed(db, ALL_KINDS)).toEqual(['door', 'return']);
    // STRICT tables refuse a value of the wrong type rather than storing it.
    expect(() => db.prepare(INSERT).run('door', '{}', 'x', 'soon', 0)).toThrow();
    db.prepare(
      'insert into stuck_confirms (kind, body, occurred_at, reason, set_aside_at) values (?, ?, ?, ?, ?)',
    ).run('door', '{}', 'x', 'old', 1);
  });

  it('2 keeps queued rows and accepts return_taken', () => {
    const db = at(1);
    db.prepare(INSERT).run('return', '{"returnId":"r"}', '2026-11-22T10:00:00.000Z', 5, 6);
    migrate(db, 2);
    expect(db.prepare('select kind, body, next_attempt_at from confirms').all()).toEqual([
      { kind: 'return', body: '{"returnId":"r"}', next_attempt_at: 5 },
    ]);
    expect(kindsAllowed(db, ALL_KINDS)).toEqual(['door', 'return', 'return_taken']);
  });

  it('3 keeps queued rows and accepts deposit_undo', () => {
    const db = at(2);
    db.prepare(INSERT).run('return_taken', '{"t":1}', '2026-11-22T10:00:00.000Z', 7, 8);
    migrate(db, 3);
    expect(db.prepare('select id, kind, body from confirms').all()).toEqual([
      { id: 1, kind: 'return_taken', body: '{"t":1}' },
    ]);
    expect(kindsAllowed(db, ALL_KINDS)).toEqual(['door', 'return', 'return_taken', 'deposit_undo']);
  });

  it('4 keeps queued rows, accepts door_fault and keeps one cached configuration', () => {
    const db = at(3);
    db.prepare(INSERT).run('deposit_undo', '{"u":1}', '2026-11-22T10:00:00.000Z', 9, 10);
    migrate(db, 4);
    expect(db.prepare('select kind, body, attempts from confirms').all()).toEqual([
      { kind: 'deposit_undo', body: '{"u":1}', attempts: 0 },
    ]);
    expect(kindsAllowed(db, ALL_KINDS)).toEqual([
      'door',
      'return',
      'return_taken',
      'deposit_undo',
      'door_fault',
    ]);
    const put = db.prepare('insert into terminal_config (id, body, received_at) values (?, ?, ?)');
    put.run(1, '{}', 'now');
    expect(() => put.run(2, '{}', 'now')).toThrow();
  });

  it('5 keeps queued rows and accepts the door supervision’s door and cabinet events', () => {
    const db = at(4);
    db.prepare(INSERT).run('door_fault', '{"position":1}', '2026-11-22T10:00:00.000Z', 3, 4);
    migrate(db, 5);
    expect(db.prepare('select id, kind, body, next_attempt_at from confirms').all()).toEqual([
      { id: 1, kind: 'door_fault', body: '{"position":1}', next_attempt_at: 3 },
    ]);
    expect(kindsAllowed(db, ALL_KINDS)).toEqual(
      ALL_KINDS.filter((k) => k !== 'parcel' && k !== 'offline_deposit'),
    );
  });

  it('6 keeps queued rows, accepts offline_deposit, and keeps what the locker needs on its own', () => {
    const db = at(5);
    db.prepare(INSERT).run('door_event', '{"position":2}', '2026-11-22T10:00:00.000Z', 9, 10);
    migrate(db, 6);
    expect(db.prepare('select id, kind, body, next_attempt_at from confirms').all()).toEqual([
      { id: 1, kind: 'door_event', body: '{"position":2}', next_attempt_at: 9 },
    ]);
    expect(kindsAllowed(db, ALL_KINDS)).toEqual(ALL_KINDS.filter((k) => k !== 'parcel'));
    const handout = db.prepare(
      'insert into offline_handouts (shipment_id, door, state, opened_at) values (?, ?, ?, ?)',
    );
    handout.run('s1', 1, 'opened', 'now');
    expect(() => handout.run('s2', 1, 'lost', 'now')).toThrow();
    expect(() =>
      db.prepare("insert into attempts (kind, at) values ('return', 1)").run(),
    ).toThrow();
  });

  it('7 keeps queued rows, remembers each link nonce once and keeps outcomes until acknowledged', () => {
    const db = at(6);
    db.prepare(INSERT).run('door_fault', '{"f":1}', '2026-11-22T10:00:00.000Z', 1, 2);
    migrate(db, 7);
    expect(db.prepare('select kind, body from confirms').all()).toEqual([
      { kind: 'door_fault', body: '{"f":1}' },
    ]);
    const nonce = db.prepare(
      'insert into link_nonces (nonce, command_id, expires_at) values (?, ?, ?)',
    );
    nonce.run('n-1', 'c-1', 1000);
    // A nonce is remembered once: a second command with it is a replay.
    expect(() => nonce.run('n-1', 'c-2', 2000)).toThrow();
    expect(() => nonce.run('n-2', 'c-2', 'later')).toThrow();
    const outcome = db.prepare(
      'insert into link_outcomes (command_id, body, created_at) values (?, ?, ?)',
    );
    outcome.run('c-1', '{}', 1);
    expect(() => outcome.run('c-1', '{}', 2)).toThrow();
  });

  it('8 keeps queued rows and bars a parcel once, strictly', () => {
    const db = at(7);
    db.prepare(INSERT).run('door', '{"b":1}', '2026-11-30T10:00:00.000Z', 1, 2);
    migrate(db, 8);
    expect(db.prepare('select kind, body from confirms').all()).toEqual([
      { kind: 'door', body: '{"b":1}' },
    ]);
    const bar = db.prepare('insert into offline_barred (shipment_id, barred_at) values (?, ?)');
    bar.run('s-1', 1);
    expect(() => bar.run('s-1', 2)).toThrow();
    expect(() => bar.run('s-2', 'later')).toThrow();
  });

  it('run again, change nothing', () => {
    const db = at(MIGRATIONS.length);
    db.prepare(INSERT).run('door', '{"x":1}', 'x', 0, 0);
    migrate(db);
    expect(db.prepare('select kind, body from confirms').all()).toEqual([
      { kind: 'door', body: '{"x":1}' },
    ]);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
  });
});
