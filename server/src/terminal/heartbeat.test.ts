import { TerminalConfigSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { Writable } from 'node:stream';
import { markSilentTerminalsOffline } from '../ops/liveness';
import { SOFT_POOL_SIZE } from '../server';
import { useTestServer, waitFor } from '../../test/harness';

const stack = useTestServer();

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

describe('POST /heartbeat', () => {
  it('is written through a pool that plans each statement once (db/connect.ts)', async () => {
    const { sql, softSql } = stack.server;
    const mode = async (pool: typeof sql) =>
      (await pool<{ plan_cache_mode: string }[]>`show plan_cache_mode`)[0]!.plan_cache_mode;
    expect(await mode(softSql)).toBe('force_generic_plan');
    // The main pool's statements are left to PostgreSQL's choice.
    expect(await mode(sql)).toBe('auto');
  });

  it('updates the terminal in place (a HOT update): no index of terminals is written', async () => {
    const station = await stack.station('1:S');
    const t = await stack.terminal(station.code);
    const updates = async () => {
      // Statistics reach the views when a backend flushes them, which one that flushed
      // less than a second before does only 10 s after going idle. So every backend of
      // the server's two pools (all held here at once) is told to flush when it next goes
      // idle, and goes idle.
      const { sql, softSql, config } = stack.server;
      const backends = await Promise.all([
        ...Array.from({ length: config.dbPoolSize }, () => sql.reserve()),
        ...Array.from({ length: SOFT_POOL_SIZE }, () => softSql.reserve()),
      ]);
      try {
        await Promise.all(backends.map((backend) => backend`select pg_stat_force_next_flush()`));
      } finally {
        for (const backend of backends) backend.release();
      }
      const [row] = await stack.sql<{ updated: string; hot: string }[]>`
        select n_tup_upd::text as updated, n_tup_hot_upd::text as hot
          from pg_stat_user_tables where relname = 'terminals'`;
      return { updated: Number(row!.updated), hot: Number(row!.hot) };
    };
    const before = await updates();
    for (let i = 0; i < 20; i++)
      expect((await t.api.post('/terminal/v1/heartbeat', { appVersion: `k-${i}` })).status).toBe(
        200,
      );
    await expect
      .poll(async () => {
        const after = await updates();
        return { updated: after.updated - before.updated, hot: after.hot - before.hot };
      })
      .toEqual({ updated: 20, hot: 20 });
  });

  it('answers the station configuration as stored and echoes the app version', async () => {
    const station = await stack.station('1:S', {
      supportPhone: '+381 11 555 0100',
      idleTimeoutSeconds: 45,
    });
    const t = await stack.terminal(station.code);
    const answer = await t.api.post('/terminal/v1/heartbeat', { appVersion: 'kiosk-2.4.1' });
    expect(TerminalConfigSchema.parse(answer.body)).toEqual({
      station_code: station.code,
      support_phone: '+381 11 555 0100',
      idle_timeout_seconds: 45,
      app_version: 'kiosk-2.4.1',
    });
    await stack.sql`update stations set idle_timeout_seconds = 90 where id = ${station.id}`;
    const next = await t.api.post('/terminal/v1/heartbeat', {});
    expect(next.body).toMatchObject({ idle_timeout_seconds: 90, app_version: null });
    const [row] =
      await stack.sql`select app_version, last_heartbeat_at from terminals where id = ${t.id}`;
    expect(row?.app_version).toBeNull();
    expect(row?.last_heartbeat_at).toBeInstanceOf(Date);
  });

  it('answers each of many kiosks beating at once its own station and version', async () => {
    // Heartbeats arriving together share one statement: no answer may go to another kiosk.
    const kiosks: {
      station: { code: string };
      idle: number;
      t: Awaited<ReturnType<typeof stack.terminal>>;
    }[] = [];
    for (let s = 0; s < 3; s++) {
      const station = await stack.station('1:S', { idleTimeoutSeconds: 30 + s });
      for (let k = 0; k < 10; k++)
        kiosks.push({ station, idle: 30 + s, t: await stack.terminal(station.code) });
    }
    await stack.sql`update terminals set status = 'offline' where id = ${kiosks[4]!.t.id}`;
    const answers = await Promise.all(
      kiosks.map(({ t }, i) => t.api.post('/terminal/v1/heartbeat', { appVersion: `k-${i}` })),
    );
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        station_code: kiosks[i]!.station.code,
        support_phone: expect.any(String),
        idle_timeout_seconds: kiosks[i]!.idle,
        app_version: `k-${i}`,
      });
    });
    const rows = await stack.sql<{ id: string; app_version: string; status: string }[]>`
      select id, app_version, status from terminals
       where id = any(${kiosks.map((k) => k.t.id)}::uuid[])`;
    const byId = new Map(rows.map((r) => [r.id, r]));
    kiosks.forEach(({ t }, i) =>
      expect(byId.get(t.id)).toEqual({ id: t.id, app_version: `k-${i}`, status: 'online' }),
    );
    // The kiosk that was offline is let in again at once.
    expect((await kiosks[4]!.t.api.get('/terminal/v1/cabinet')).status).toBe(200);
  });

  it('accepts an empty POST and refuses invalid JSON, a too long version and unknown fields', async () => {
    const station = await stack.station('1:S');
    const t = await stack.terminal(station.code);
    expect((await t.api.raw('POST', '/terminal/v1/heartbeat')).status).toBe(200);
    expect((await t.api.post('/terminal/v1/heartbeat', 'not json')).body.code).toBe('invalid_json');
    expect(
      (await t.api.post('/terminal/v1/heartbeat', { appVersion: 'v'.repeat(64) })).status,
    ).toBe(200);
    expect(
      (await t.api.post('/terminal/v1/heartbeat', { appVersion: 'v'.repeat(65) })).body.code,
    ).toBe('invalid_request');
    expect((await t.api.post('/terminal/v1/heartbeat', { version: '1' })).body.code).toBe(
      'invalid_request',
    );
  });
});

describe('liveness sweeper', () => {
  it('passes over a silent terminal whose row is being written, and marks it at the next sweep', async () => {
    // Heartbeats are written together and lock rows in their own order: the sweep must not
    // wait for a row a heartbeat holds (the two would deadlock).
    const station = await stack.station('1:S');
    const busy = await stack.terminal(station.code);
    await stack.sql`update terminals set last_heartbeat_at = now() - interval '181 seconds' where id = ${busy.id}`;
    const { log } = capturingLogger();
    let release!: () => void;
    const held = stack.sql.begin(async (tx) => {
      await tx`select 1 from terminals where id = ${busy.id} for no key update`;
      await new Promise<void>((r) => (release = r));
    });
    await waitFor(() => release);
    const first = await markSilentTerminalsOffline(stack.sql, log, 180);
    expect(first.map((m) => m.terminal_id)).not.toContain(busy.id);
    release();
    await held;
    const second = await markSilentTerminalsOffline(stack.sql, log, 180);
    expect(second.map((m) => m.terminal_id)).toContain(busy.id);
  });

  it('marks a terminal silent for 3 minutes offline once, with one alert and a log line, even with two sweepers', async () => {
    const station = await stack.station('1:S');
    const silent = await stack.terminal(station.code);
    const alive = await stack.terminal(station.code);
    await stack.sql`update terminals set last_heartbeat_at = now() - interval '181 seconds' where id = ${silent.id}`;
    await stack.sql`update terminals set last_heartbeat_at = now() - interval '170 seconds' where id = ${alive.id}`;
    const { log, lines } = capturingLogger();
    const [a, b] = await Promise.all([
      markSilentTerminalsOffline(stack.sql, log, 180),
      markSilentTerminalsOffline(stack.sql, log, 180),
    ]);
    const marked = [...a, ...b].filter(
      (m) => m.terminal_id === silent.id || m.terminal_id === alive.id,
    );
    expect(marked.map((m) => m.terminal_id)).toEqual([silent.id]);
    const alerts =
      await stack.sql`select kind, station_id from alerts where terminal_id in ${stack.sql([silent.id, alive.id])}`;
    expect(alerts).toEqual([{ kind: 'terminal_offline', station_id: station.id }]);
    expect(
      lines.filter((l) => l.alert === 'terminal_offline' && l.terminal_id === silent.id),
    ).toHaveLength(1);

    expect((await silent.api.get('/terminal/v1/cabinet')).status).toBe(401);
    expect((await silent.api.post('/terminal/v1/heartbeat')).status).toBe(200);
    expect((await silent.api.get('/terminal/v1/cabinet')).status).toBe(200);
  });
});
