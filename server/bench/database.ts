import path from 'node:path';
import { REPO_ROOT } from '../src/config';
import { connect, type Sql } from '../src/db/connect';
import { ensureEmbeddedPostgres } from '../src/db/embedded';
import { migrate } from '../src/db/migrate';

/**
 * Drops and creates the database `name` on the cluster at `clusterUrl`, migrated: every
 * benchmark run starts from an empty schema.
 */
export async function freshDatabase(
  clusterUrl: string,
  name: string,
): Promise<{ url: string; sql: Sql }> {
  const admin = connect(clusterUrl, { max: 1 });
  await admin`drop database if exists ${admin(name)} with (force)`;
  await admin`create database ${admin(name)}`;
  await admin.end();
  const url = clusterUrl.replace(/\/postgres$/, `/${name}`);
  const sql = connect(url, { max: 4 });
  await migrate(sql);
  return { url, sql };
}

/** A fresh, migrated benchmark database on the embedded PostgreSQL (or BENCH_DATABASE_URL's server). */
export async function benchDatabase(
  name: string,
): Promise<{ url: string; sql: Sql; stop: () => Promise<void> }> {
  const embedded = await ensureEmbeddedPostgres({
    dataDir: path.join(REPO_ROOT, '.data/bench-postgres'),
    port: Number(process.env.BENCH_PG_PORT ?? 54359),
    // 50,000 stations of 48 doors are ~400 MB with indexes: a production-sized buffer
    // cache keeps them in memory, as any real deployment's would.
    settings: ['shared_buffers=1GB', 'max_wal_size=4GB'],
  });
  const { url, sql } = await freshDatabase(embedded.url, name);
  return {
    url,
    sql,
    stop: async () => {
      await sql.end();
      await embedded.stop();
    },
  };
}
