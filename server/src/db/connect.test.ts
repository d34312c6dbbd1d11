import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { connect, localSocketUrl, unixSocketOf } from './connect';

describe('a database over a Unix-domain socket', () => {
  it('takes the socket directory out of the address, as libpq’s host parameter', () => {
    expect(unixSocketOf('postgres://u:p@localhost:5433/db?host=/run/postgresql')).toEqual({
      address: 'postgres://u:p@localhost:5433/db',
      socketDirectory: '/run/postgresql',
    });
    expect(unixSocketOf('postgres://u:p@h/db?sslmode=require&host=%2Ftmp')).toEqual({
      address: 'postgres://u:p@h/db?sslmode=require',
      socketDirectory: '/tmp',
    });
    // A host name in the query is not a socket; nothing else is touched.
    for (const url of ['postgres://u:p@h/db', 'postgres://u:p@h/db?host=db.example'])
      expect(unixSocketOf(url)).toEqual({ address: url });
  });

  it('finds the socket of a cluster on this machine, and none for another host or port', () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'socket-'));
    writeFileSync(path.join(directory, '.s.PGSQL.6543'), '');
    expect(localSocketUrl('postgres://u:p@127.0.0.1:6543/db', directory)).toBe(
      `postgres://u:p@127.0.0.1:6543/db?host=${encodeURIComponent(directory)}`,
    );
    expect(localSocketUrl('postgres://u:p@127.0.0.1:6544/db', directory)).toBeUndefined();
    expect(localSocketUrl('postgres://u:p@db.example:6543/db', directory)).toBeUndefined();
  });

  it('reaches the tests’ embedded cluster over its socket, not over TCP', async () => {
    const adminUrl = inject('adminDatabaseUrl');
    // Under DATABASE_URL the tests may use a cluster elsewhere; the embedded one has a socket.
    const socketUrl = localSocketUrl(adminUrl);
    if (!process.env.DATABASE_URL) expect(socketUrl).toBeDefined();
    const sql = connect(socketUrl ?? adminUrl, { max: 1 });
    try {
      const [row] = await sql<{ address: string | null }[]>`select inet_server_addr() as address`;
      if (socketUrl) expect(row!.address).toBeNull();
    } finally {
      await sql.end();
    }
  });
});
