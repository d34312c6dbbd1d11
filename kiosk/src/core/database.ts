import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { MIGRATIONS } from './migrations';

export { MIGRATIONS };
export type KioskDatabase = Database.Database;

/** Runs each migration the database has not run yet, each in its own transaction. */
export function migrate(db: KioskDatabase, upTo = MIGRATIONS.length): number {
  const from = db.pragma('user_version', { simple: true }) as number;
  for (let version = from; version < upTo; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
  return upTo;
}

/**
 * The kiosk's local database. WAL with synchronous=FULL: a report the kiosk queued
 * survives a power cut or a kill -9 the instant after the write returns.
 */
export function openKioskDatabase(dataDir: string): KioskDatabase {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, 'kiosk.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  migrate(db);
  return db;
}
