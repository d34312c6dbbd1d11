import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  KioskCore,
  loadKioskConfig,
  openKioskDatabase,
  type KioskState,
  type ServiceCondition,
} from '@locker/kiosk';
import { admin } from '@locker/server';
import { waitFor } from '@locker/server/testing';
import { extendingProxy } from './extendingProxy';
import { kioskStation, writeTestKioskConfig } from './fixture';
import { restart } from './restart';

// The kiosk core against the real server and PostgreSQL, on the simulated cabinet: what
// it tells the screen about the service and the controller, and how it recovers.

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startKiosk(configFile: string) {
  const core = await KioskCore.start(loadKioskConfig(configFile), { stdout: false });
  cleanups.push(() => core.stop());
  return core;
}

const conditionOf = (core: KioskCore, expected: ServiceCondition, ms = 15_000) =>
  waitFor(async () => {
    const state = await core.getState();
    return state.condition === expected ? state : undefined;
  }, ms);

function logLines(dataDir: string): Record<string, unknown>[] {
  const dir = path.join(dataDir, 'logs');
  return readdirSync(dir).flatMap((file) =>
    readFileSync(path.join(dir, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  );
}

describe('a service that adds fields to every answer', () => {
  it('boots with a confirm queued, replays it, and serves, while an unusable answer fails only its call', async () => {
    const { stack, scene } = await kioskStation('1:S,2:S');
    cleanups.push(() => stack.close());
    const proxy = await extendingProxy(stack.url);
    cleanups.push(() => proxy.close());
    const { shipment, code } = await scene.deposit();
    await scene.terminal.api.post('/terminal/v1/pickup', { code });
    const configFile = writeTestKioskConfig(proxy.url, scene.terminal.token);
    const dataDir = loadKioskConfig(configFile).dataDir;
    // The last run shut the door and queued the confirm, then stopped before sending it
    // (dated after the deposit: an earlier report is recorded at its arrival, migration 013).
    await new Promise((resolve) => setTimeout(resolve, 5));
    const closedAt = new Date().toISOString();
    const db = openKioskDatabase(dataDir);
    db.prepare(
      'insert into confirms (kind, body, occurred_at, next_attempt_at, created_at) values (?, ?, ?, ?, ?)',
    ).run(
      'door',
      JSON.stringify({ shipmentId: shipment.id, collected: true, occurred_at: closedAt }),
      closedAt,
      0,
      0,
    );
    db.close();

    const core = await startKiosk(configFile);
    await waitFor(async () => ((await core.getState()).pendingReports === 0 ? true : undefined));
    const [row] =
      await stack.sql`select status, collected_at from shipments where id = ${shipment.id}`;
    expect(row).toEqual({ status: 'collected', collected_at: new Date(closedAt) });
    const state = await waitFor(async () => {
      const s = await core.getState();
      return s.cabinet && s.config ? s : undefined;
    });
    expect(state.config).toEqual({
      station_code: scene.station.code,
      support_phone: '+383 38 555 000',
      idle_timeout_seconds: expect.any(Number) as number,
      app_version: 'kiosk-1.0.0',
    });
    expect(state.cabinet?.doors.map((d) => d.position)).toEqual([1, 2]);
    expect(state.condition).toBe('ok');

    const next = await scene.deposit();
    expect(await core.pickup(next.code)).toEqual({ kind: 'door_open', door: next.door });

    proxy.breakNext('/terminal/v1/courier/verify');
    expect(await core.verifyCourier(scene.courier.number)).toEqual({ kind: 'unavailable' });
    const sent = proxy.seen.filter((s) => s.path === '/terminal/v1/courier/verify').at(-1);
    expect(sent?.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    const logged = await waitFor(() =>
      logLines(dataDir).find(
        (l) => l.msg === 'unusable answer' && l.correlation_id === sent?.correlationId,
      ),
    );
    expect(logged).toMatchObject({ call: 'post courier/verify', status: 200 });
    expect((await core.getState()).condition).toBe('ok');
    expect(await core.verifyCourier(scene.courier.number)).toEqual({
      kind: 'verified',
      courierName: scene.courier.name,
      toTakeOut: 0,
    });
    // Every call carried a correlation id.
    expect(proxy.seen.every((s) => s.correlationId)).toBe(true);
  });
});

describe('out of service, honestly', () => {
  it('tells a disabled terminal from a network outage, judges the outage on the first failed call, and recovers from both', async () => {
    const { stack, scene } = await kioskStation('1:S');
    let server = stack.server;
    cleanups.push(() => stack.close());
    const configFile = writeTestKioskConfig(stack.url, scene.terminal.token, {
      heartbeatIntervalSeconds: 60,
      cabinetPollSeconds: 60,
    });
    const core = await startKiosk(configFile);
    await waitFor(async () =>
      (await core.getState()).configSource === 'service' ? true : undefined,
    );

    await admin.setTerminalStatus(stack.sql, scene.terminal.id, 'disabled');
    // The mark reaches the server's terminal cache by a database notification: wait until
    // the server refuses this terminal, as the kiosk's next call then meets it.
    await waitFor(async () =>
      (await scene.terminal.api.get('/terminal/v1/cabinet')).status === 401 ? true : undefined,
    );
    // The next call is refused as unauthorized; its heartbeat tells why: refused.
    expect(await core.verifyCourier(scene.courier.number)).toEqual({ kind: 'unavailable' });
    await conditionOf(core, 'terminal_refused', 2000);
    await admin.setTerminalStatus(stack.sql, scene.terminal.id, 'online');
    await conditionOf(core, 'ok'); // the recovery heartbeat, every 5 s while out of service

    await server.close();
    const asked = Date.now();
    expect(await core.verifyCourier(scene.courier.number)).toEqual({ kind: 'unavailable' });
    const down = await conditionOf(core, 'service_unreachable', 1000);
    expect(Date.parse(down.conditionSince!)).toBeGreaterThanOrEqual(asked - 5);
    server = await restart(stack.url, stack.databaseUrl);
    cleanups.push(() => server.close());
    await conditionOf(core, 'ok');
    expect(await core.verifyCourier(scene.courier.number)).toMatchObject({ kind: 'verified' });
  });

  it('boots while the service is down with the support phone of the last run', async () => {
    const { stack, scene } = await kioskStation('1:S');
    cleanups.push(() => stack.close());
    const configFile = writeTestKioskConfig(stack.url, scene.terminal.token);
    const first = await KioskCore.start(loadKioskConfig(configFile), { stdout: false });
    await waitFor(async () =>
      (await first.getState()).configSource === 'service' ? true : undefined,
    );
    await first.stop();
    await stack.server.close();

    const core = await startKiosk(configFile);
    const state: KioskState = await core.getState();
    expect(state.configSource).toBe('cache');
    expect(state.config?.support_phone).toBe('+383 38 555 000');
    await conditionOf(core, 'service_unreachable', 5000);
  });

  it('says which doors are unknown when a board is silent, and when the whole controller is, from the door watch', async () => {
    const { stack, scene } = await kioskStation('1:S');
    cleanups.push(() => stack.close());
    // The grid's poll (and the sensor read between polls) ten minutes apart: what the
    // kiosk says here comes from the door watch's reads, each half second.
    const configFile = writeTestKioskConfig(stack.url, scene.terminal.token, {
      lock: { kind: 'simulator', boards: 2 },
      cabinetPollSeconds: 600,
    });
    const core = await startKiosk(configFile);
    const cabinet = core.hardware.simulator!.cabinet;
    await conditionOf(core, 'ok');
    cabinet.setResponsive(1, false);
    const degraded = await conditionOf(core, 'degraded');
    expect(degraded.unknownDoors).toEqual(Array.from({ length: 16 }, (_, i) => 17 + i));
    cabinet.setResponsive(0, false);
    await conditionOf(core, 'controller_unreachable');
    expect(await core.readSensors()).toEqual({ kind: 'board_unreachable' });
    cabinet.setResponsive(0, true);
    cabinet.setResponsive(1, true);
    await conditionOf(core, 'ok');
  });
});
