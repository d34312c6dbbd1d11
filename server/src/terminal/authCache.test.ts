import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { revokeTerminal, setTerminalStatus } from '../admin/commands';
import postgres from 'postgres';
import { unixSocketOf } from '../db/connect';
import { createLogger } from '../logger';
import { startServer, type RunningServer } from '../server';
import { TerminalAuthCache, listenForAuthChanges, loadAll } from './authCache';
import { client, useTestServer, waitFor } from '../../test/harness';

// Two server instances on one database: what one instance or an operator changes, the
// other's cache must reflect.
const stack = useTestServer();
let second: RunningServer;
beforeAll(async () => {
  second = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: stack.databaseUrl,
    logLevel: 'silent',
    // The same SMS file: either instance may deliver the code a test waits for.
    smsTransport: `file:${stack.smsFile}`,
    development: true,
  });
});
afterAll(async () => {
  await second.close();
});

/** The key the replica holds a terminal under: its token's hash. */
async function tokenHashOf(terminalId: string) {
  const [row] = await stack.sql<{ token_hash: Buffer }[]>`
    select token_hash from terminals where id = ${terminalId}`;
  return row!.token_hash.toString('base64');
}

describe('terminal authentication cache', () => {
  it('refuses a revoked token on every instance once the revocation commits', async () => {
    const station = await stack.station('1:S');
    const t = await stack.terminal(station.code);
    const other = client(second.url, t.token);
    expect((await t.api.get('/terminal/v1/cabinet')).status).toBe(200);
    expect((await other.get('/terminal/v1/cabinet')).status).toBe(200);
    await revokeTerminal(stack.sql, t.id);
    await waitFor(
      async () => ((await other.get('/terminal/v1/cabinet')).status === 401 ? true : undefined),
      2000,
    );
    await waitFor(
      async () => ((await t.api.get('/terminal/v1/cabinet')).status === 401 ? true : undefined),
      2000,
    );
    for (let i = 0; i < 5; i++) expect((await other.get('/terminal/v1/cabinet')).status).toBe(401);
  });

  it('refuses a disabled terminal and lets it back once online', async () => {
    const station = await stack.station('1:S');
    const t = await stack.terminal(station.code);
    expect((await t.api.get('/terminal/v1/cabinet')).status).toBe(200);
    await setTerminalStatus(stack.sql, t.id, 'disabled');
    await waitFor(
      async () => ((await t.api.get('/terminal/v1/cabinet')).status === 401 ? true : undefined),
      2000,
    );
    await setTerminalStatus(stack.sql, t.id, 'online');
    await waitFor(
      async () => ((await t.api.get('/terminal/v1/cabinet')).status === 200 ? true : undefined),
      2000,
    );
  });

  it('ends a 304 on the other instance once a deposit through this one changes the grid', async () => {
    const scene = await stack.scene('1:S,2:S');
    const other = client(second.url, scene.terminal.token);
    const first = await other.get('/terminal/v1/cabinet');
    const etag = first.headers.get('etag')!;
    expect((await other.get('/terminal/v1/cabinet', { 'If-None-Match': etag })).status).toBe(304);
    await scene.deposit();
    const changed = await waitFor(async () => {
      const answer = await other.get('/terminal/v1/cabinet', { 'If-None-Match': etag });
      return answer.status === 200 ? answer : undefined;
    }, 2000);
    expect(changed.body.doors[0].status).toBe('occupied');
  });
});

describe('the replica read whole', () => {
  it('reads in batches, answers from the old replica meanwhile, and keeps no read a change raced', async () => {
    const station = await stack.station('1:S');
    const terminals = [];
    for (let i = 0; i < 5; i++) terminals.push(await stack.terminal(station.code));
    const hashes = await Promise.all(terminals.map((t) => tokenHashOf(t.id)));
    const cache = new TerminalAuthCache();
    expect(await loadAll(stack.sql, cache, 2)).toBe(true);
    expect(cache.isComplete).toBe(true);
    for (const [i, hash] of hashes.entries()) expect(cache.get(hash)?.id).toBe(terminals[i]!.id);

    // A second read, a batch of one row at a time: between batches the old replica still
    // answers, and a terminal revoked meanwhile is refused (its change marks it stale, and
    // the read that began before it is read again).
    await revokeTerminal(stack.sql, terminals[0]!.id);
    const reading = loadAll(stack.sql, cache, 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.get(hashes[1]!)?.id).toBe(terminals[1]!.id);
    cache.invalidate(terminals[0]!.id);
    expect(cache.get(hashes[0]!)).toBeUndefined();
    expect(await reading).toBe(true);
    expect(cache.get(hashes[0]!)).toBeNull();
    for (const [i, hash] of hashes.entries())
      if (i > 0) expect(cache.get(hash)?.id).toBe(terminals[i]!.id);
  });

  it('is read once at a start, and whole again when its listener reconnects', async () => {
    const station = await stack.station('1:S');
    const terminal = await stack.terminal(station.code);
    const hash = await tokenHashOf(terminal.id);
    // A client of its own, named, so that its listener can be cut and no other.
    const { address, socketDirectory } = unixSocketOf(stack.databaseUrl);
    const sql = postgres(address, {
      ...(socketDirectory ? { host: socketDirectory } : {}),
      max: 2,
      onnotice: () => {},
      connection: { application_name: 'auth-replica-test' },
    });
    const cache = new TerminalAuthCache();
    // Every read that got to its end tries one swap.
    const swaps = vi.spyOn(cache, 'swap');
    const unlisten = await listenForAuthChanges(sql, cache, createLogger('silent'));
    try {
      // Four channels listened and the start read the replica: one read, whole.
      expect(swaps).toHaveBeenCalledTimes(1);
      expect(swaps.mock.results[0]!.value).toBe(true);
      expect(cache.get(hash)?.id).toBe(terminal.id);

      // The listener's connection cut: it reconnects and each channel, listening again,
      // forgets the replica (it may have missed a change); the replica is read whole again,
      // one read for the reports that come together, never more than one a report.
      await stack.sql`
        select pg_terminate_backend(pid) from pg_stat_activity
         where application_name = 'auth-replica-test' and query like 'listen %'`;
      await expect
        .poll(() => cache.isComplete && swaps.mock.calls.length > 1 && cache.get(hash)?.id)
        .toBe(terminal.id);
      expect(swaps.mock.calls.length).toBeLessThanOrEqual(1 + 4);
    } finally {
      await unlisten();
      await sql.end();
    }
  });

  it('is read again soon after a read that failed, and no more once it is whole or closed', async () => {
    const station = await stack.station('1:S');
    const terminal = await stack.terminal(station.code);
    const hash = await tokenHashOf(terminal.id);
    const cache = new TerminalAuthCache();
    // The first two reads fail (the database out of reach), the third reads it.
    let loads = 0;
    const unlisten = await listenForAuthChanges(stack.sql, cache, createLogger('silent'), {
      retryMs: 20,
      load: async (sql, into) => {
        if (++loads <= 2) throw new Error('connection refused');
        return loadAll(sql, into);
      },
    });
    try {
      // The start waited for one try, not for the replica: it is not whole yet, and a
      // terminal it lacks is not taken for one that does not exist.
      expect(loads).toBe(1);
      expect(cache.isComplete).toBe(false);
      expect(cache.get(hash)).toBeUndefined();
      // Read again within a second (not at the five-minute safety net), whole.
      await expect.poll(() => cache.isComplete && cache.get(hash)?.id).toBe(terminal.id);
      expect(loads).toBe(3);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(loads).toBe(3);
    } finally {
      await unlisten();
    }

    // A replica that cannot be read is tried again until its listener is closed.
    const failing = new TerminalAuthCache();
    let tries = 0;
    const close = await listenForAuthChanges(stack.sql, failing, createLogger('silent'), {
      retryMs: 10,
      load: () => Promise.reject(new Error('connection refused')).finally(() => tries++),
    });
    await expect.poll(() => tries).toBeGreaterThanOrEqual(3);
    await close();
    const after = tries;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(tries).toBe(after);
    expect(failing.isComplete).toBe(false);
  });
});
