import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { connect } from '../src/db/connect';

// What globalSetup.ts provides to every test file; declared where it is read, so that any
// package's type check that reaches this file knows it.
declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL URL with the right to create databases. */
    adminDatabaseUrl: string;
  }
}

export const TEMPLATE_DATABASE = 'locker_template';

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** A new, migrated database for one test file, copied from the template. */
export async function freshDatabaseUrl(): Promise<string> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `locker_t_${randomBytes(6).toString('hex')}`;
  const admin = connect(adminUrl, { max: 1 });
  try {
    await admin`create database ${admin(name)} template ${admin(TEMPLATE_DATABASE)}`;
  } finally {
    await admin.end();
  }
  return withDatabase(adminUrl, name);
}
