import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { REPO_ROOT } from '../src/config';
import { connect } from '../src/db/connect';
import { ensureEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded';
import { migrate } from '../src/db/migrate';
import { TEMPLATE_DATABASE, withDatabase } from './databases';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL URL with the right to create databases. */
    adminDatabaseUrl: string;
  }
}

let embedded: EmbeddedDatabase | undefined;

/**
 * Tests run on a real PostgreSQL: `DATABASE_URL` when set, else an embedded cluster of
 * their own (fsync off: test data need not survive a power cut). Migrations run once into
 * a template database that every test file copies.
 */
export async function setup(project: TestProject): Promise<void> {
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    embedded = await ensureEmbeddedPostgres({
      dataDir: path.join(REPO_ROOT, '.data/test-postgres'),
      port: Number(process.env.TEST_PG_PORT ?? 54339),
      durable: false,
    });
    adminUrl = embedded.url;
  }
  const admin = connect(adminUrl, { max: 1 });
  try {
    const stale = await admin<{ datname: string }[]>`
      select datname from pg_database where datname like 'locker_t_%' or datname = ${TEMPLATE_DATABASE}`;
    for (const { datname } of stale)
      await admin`drop database if exists ${admin(datname)} with (force)`;
    await admin`create database ${admin(TEMPLATE_DATABASE)}`;
  } finally {
    await admin.end();
  }
  const template = connect(withDatabase(adminUrl, TEMPLATE_DATABASE), { max: 1 });
  try {
    await migrate(template);
  } finally {
    await template.end();
  }
  project.provide('adminDatabaseUrl', adminUrl);
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
}
