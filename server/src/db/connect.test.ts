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

describe('a pool of generic plans', () => {
  // The heartbeats' batch shape: a keyed update joined to the arrays it is given.
  const batch = `
    update heartbeat_shape h set seen = b.seen
      from unnest($1::int[], $2::text[]) as b(id, seen)
     where h.id = b.id`;

  async function plansOf(genericPlans: boolean) {
    const sql = connect(inject('adminDatabaseUrl'), { max: 1, genericPlans });
    try {
      await sql`create temp table heartbeat_shape (id int primary key, seen text)`;
      await sql`insert into heartbeat_shape select g, '' from generate_series(1, 5000) g`;
      await sql`analyze heartbeat_shape`;
      // Batches of varying sizes, as heartbeats gathered over a window are.
      for (let run = 0; run < 10; run++) {
        const ids = Array.from({ length: 1 + (run % 4) }, (_, i) => run * 10 + i + 1);
        await sql.unsafe(batch, [ids, ids.map(() => 'now')], { prepare: true });
      }
      const [plans] = await sql<{ generic: number; custom: number }[]>`
        select generic_plans::int as generic, custom_plans::int as custom
          from pg_prepared_statements where statement = ${batch}`;
      return plans;
    } finally {
      await sql.end();
    }
  }

  it('plans a batch statement once a connection, where PostgreSQL would plan it at every run', async () => {
    // By default PostgreSQL finds a plan for each run's array lengths cheaper than its
    // generic plan, so it plans the statement again every time.
    expect(await plansOf(false)).toEqual({ generic: 0, custom: 10 });
    expect(await plansOf(true)).toEqual({ generic: 10, custom: 0 });
  });
});

describe('the pool hands out its most recently idle connection', () => {
  it('runs a sequential load on one connection after a burst opened several (patches/postgres)', async () => {
    const sql = connect(inject('adminDatabaseUrl'), { max: 3 });
    try {
      const backend = async () =>
        (await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
      // A burst: three statements at once open three connections.
      const burst = await Promise.all(
        Array.from({ length: 3 }, async () => {
          const [row] = await sql<
            { pid: number }[]
          >`select pg_backend_pid() as pid, pg_sleep(0.05)`;
          return row!.pid;
        }),
      );
      expect(new Set(burst).size).toBe(3);
      // One at a time afterwards: always the connection that was idle last, where round
      // robin went through all three.
      const sequential = [];
      for (let i = 0; i < 9; i++) sequential.push(await backend());
      expect(new Set(sequential).size).toBe(1);
    } finally {
      await sql.end();
    }
  });
});
