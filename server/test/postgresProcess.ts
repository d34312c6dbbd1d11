/**
 * The tests' embedded PostgreSQL, in a process of its own that owns the cluster for the
 * whole run, apart from vitest's workers. Prints `{"url": …}` once the cluster accepts
 * connections; stops it on SIGTERM.
 */
import path from 'node:path';
import { REPO_ROOT } from '../src/config';
import { ensureEmbeddedPostgres } from '../src/db/embedded';

const database = await ensureEmbeddedPostgres({
  dataDir: path.join(REPO_ROOT, '.data/test-postgres'),
  port: Number(process.env.TEST_PG_PORT ?? 54339),
  durable: false,
});
process.stdout.write(JSON.stringify({ url: database.url }) + '\n');
process.once('SIGTERM', () => {
  void database.stop().finally(() => process.exit(0));
});
setInterval(() => {}, 1 << 30);
