import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

/** The confirms table, accepting these kinds. Its columns never change; its kinds grow. */
function confirmsTable(name: string, kinds: string[]): string {
  return `create table ${name} (
     id integer primary key,
     kind text not null check (kind in (${kinds.map((k) => `'${k}'`).join(', ')})),
     body text not null,
     occurred_at text not null,
     attempts integer not null default 0,
     next_attempt_at integer not null,
     last_error text,
     created_at integer not null
   ) strict;`;
}

/** SQLite cannot change a CHECK constraint: the table is rebuilt with its rows. */
function allowConfirmKinds(version: number, kinds: string[]): string {
  const next = `confirms_v${version}`;
  return `${confirmsTable(next, kinds)}
   insert into ${next} select * from confirms;
   drop table confirms;
   alter table ${next} rename to confirms;`;
}

/** Versioned, forward-only; `user_version` records how far a database has come. */
export const MIGRATIONS: string[] = [
  `${confirmsTable('confirms', ['door', 'return'])}
   create table stuck_confirms (
     id integer primary key,
     kind text not null,
     body text not null,
     occurred_at text not null,
     reason text not null,
     set_aside_at integer not null
   ) strict;`,
  // A courier taking a return out of the locker is confirmed through the queue too.
  allowConfirmKinds(2, ['door', 'return', 'return_taken']),
  // A deposit whose door the courier shut empty is undone through the queue too.
  allowConfirmKinds(3, ['door', 'return', 'return_taken', 'deposit_undo']),
];

export type KioskDatabase = Database.Database;

export function migrate(db: KioskDatabase): number {
  const from = db.pragma('user_version', { simple: true }) as number;
  for (let version = from; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
  return MIGRATIONS.length;
}

/**
 * The kiosk's local database. WAL with synchronous=FULL: a confirm the kiosk wrote
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
