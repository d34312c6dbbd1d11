import Database from 'better-sqlite3';
import path from 'node:path';
import { startServer, type RunningServer } from '@locker/server';

/** The same server again, on the same port and database, as after an outage. */
export function restart(url: string, databaseUrl: string): Promise<RunningServer> {
  return startServer({
    port: Number(new URL(url).port),
    host: '127.0.0.1',
    databaseUrl,
    logLevel: 'silent',
    smsTransport: 'file:/dev/null',
    development: true,
  });
}

/** What waits in a kiosk's durable queue, read from its database file. */
export function queuedReports(
  dataDir: string,
): { kind: string; body: Record<string, unknown>; occurred_at: string }[] {
  const db = new Database(path.join(dataDir, 'kiosk.sqlite'), { readonly: true });
  try {
    const rows = db.prepare('select kind, body, occurred_at from confirms order by id').all() as {
      kind: string;
      body: string;
      occurred_at: string;
    }[];
    return rows.map((r) => ({ ...r, body: JSON.parse(r.body) as Record<string, unknown> }));
  } finally {
    db.close();
  }
}
