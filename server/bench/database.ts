import { connect, type Sql } from '../src/db/connect';
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
