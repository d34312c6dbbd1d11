import { spawn, type ChildProcess } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { REPO_ROOT } from '../src/config';
import { connect } from '../src/db/connect';
import { migrate } from '../src/db/migrate';
import { TEMPLATE_DATABASE, withDatabase } from './databases';

let postgres: ChildProcess | undefined;

/** Starts test/postgresProcess.ts and answers the URL it prints. */
function startEmbedded(): Promise<string> {
  postgres = spawn(process.execPath, ['--import', 'tsx', 'server/test/postgresProcess.ts'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    postgres!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    postgres!.once('exit', (code) =>
      reject(new Error(`the test PostgreSQL process ended (${code})`)),
    );
  });
}

/**
 * Tests run on a real PostgreSQL: `DATABASE_URL` when set, else an embedded cluster of
 * their own (fsync off: test data need not survive a power cut). Migrations run once into
 * a template database that every test file copies.
 */
export async function setup(project: TestProject): Promise<void> {
  let adminUrl = process.env.DATABASE_URL;
  adminUrl ??= await startEmbedded();
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
  const child = postgres;
  if (!child || child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
