import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KioskCore, RENDERER_DIR, loadKioskConfig, startBrowserHost } from '@locker/kiosk';
import {
  generateLinkKey,
  linkSigner,
  startServer,
  startTestServer,
  waitFor,
  type RunningServer,
  type TestStack,
} from '@locker/server/testing';
import { launchBrowser, writeTestKioskConfig } from './fixture';
import { linkProxy, type LinkProxy } from './linkProxy';

// The live link end to end: the real server (one or two instances) and PostgreSQL, the
// real kiosk core on the simulated cabinet, and, where a test needs one, someone in the
// middle of the link who can send the kiosk anything.

const key = generateLinkKey();
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

const stopOf = new WeakMap<KioskCore, () => Promise<void>>();
const stopKiosk = (core: KioskCore) => stopOf.get(core)!();

interface LinkScene {
  stack: TestStack;
  scene: Awaited<ReturnType<TestStack['scene']>>;
  core: KioskCore;
  configFile: string;
  cabinet: NonNullable<KioskCore['hardware']['simulator']>['cabinet'];
  proxy?: LinkProxy;
}

/** Started, its stop registered once (a test may stop it sooner: `stopKiosk`). */
async function startKiosk(configFile: string): Promise<KioskCore> {
  const core = await KioskCore.start(loadKioskConfig(configFile), { stdout: false });
  let stopping: Promise<void> | undefined;
  stopOf.set(core, () => (stopping ??= core.stop()));
  stops.push(() => stopKiosk(core));
  // Its station known (the heartbeat) and its link up.
  await waitFor(async () => {
    const s = await core.getState();
    return s.config?.station_code && s.link === 'connected';
  }, 15_000);
  return core;
}

/** A station whose kiosk pins this file's key, reaching `serverUrl` (else the stack's). */
async function linkScene(
  options: { doors?: string; via?: 'proxy'; serverUrl?: string; stack?: TestStack } = {},
  kioskExtra: object = {},
): Promise<LinkScene> {
  const stack = options.stack ?? (await startTestServer({ linkSigningKey: key.seed }));
  if (!options.stack) stops.push(() => stack.close());
  const scene = await stack.scene(options.doors ?? '1:S,2:S,3:M');
  const proxy = options.via === 'proxy' ? await linkProxy(stack.url) : undefined;
  if (proxy) stops.push(() => proxy.close());
  const configFile = writeTestKioskConfig(
    proxy?.url ?? options.serverUrl ?? stack.url,
    scene.terminal.token,
    { linkPublicKey: key.publicKey, doorWatchIntervalMs: 200, ...kioskExtra },
  );
  const core = await startKiosk(configFile);
  return { stack, scene, core, configFile, cabinet: core.hardware.simulator!.cabinet, proxy };
}

const openDoor = (k: LinkScene, door: number, server: RunningServer = k.stack.server) =>
  server.link.commands.issue({
    stationCode: k.scene.station.code,
    door,
    kind: 'open_door',
    args: { by: 'operator' },
    issuedBy: 'test-operator',
    reason: 'customer stuck at the door',
  });

async function doorState(k: LinkScene, position: number) {
  const [row] = await k.stack.sql<{ closed: boolean; in_session: boolean; seen_at: Date }[]>`
    select closed, in_session, seen_at from door_sensor_states
     where station_id = ${k.scene.station.id} and position = ${position}`;
  return row;
}

describe('a remote open', () => {
  it('opens the simulated door through a door session, its outcome comes back, and the screen says who opened it', async () => {
    const k = await linkScene();
    const host = await startBrowserHost(k.core, RENDERER_DIR);
    stops.push(() => host.close());
    const browser = await launchBrowser();
    stops.push(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1080, height: 1600 } });
    await page.goto(`${host.url}?lang=en`);
    await page.getByRole('button', { name: 'Pick up a parcel' }).waitFor();
    const open = vi.spyOn(k.core.hardware.board, 'open');

    const issued = await openDoor(k, 2);
    const done = await k.stack.server.link.commands.waitForOutcome(issued.id, 15_000);
    expect(done).toMatchObject({ status: 'done', outcome: 'opened', door: 2 });
    expect(done?.outcomeDetail).toMatchObject({ pulses: 1 });
    expect(open).toHaveBeenCalledTimes(1);
    expect(k.cabinet.door(2).closed).toBe(false);
    expect((await k.core.getState()).remoteOpen).toMatchObject({
      by: 'operator',
      session: { kind: 'remote', door: 2, phase: 'open', active: true },
    });
    const banner = page.locator('.remote-open');
    await banner.getByText('Door 2 was opened by an operator.').waitFor();
    // The service sees the door standing open, in a session.
    await expect.poll(() => doorState(k, 2)).toMatchObject({ closed: false, in_session: true });

    k.cabinet.closeDoor(2, false);
    await waitFor(async () => (await k.core.getState()).remoteOpen?.session.phase === 'reported');
    await banner.waitFor({ state: 'detached' });
    await expect.poll(() => doorState(k, 2)).toMatchObject({ closed: true, in_session: false });
    // The door supervision knew the door was driven: nothing was reported as opened unseen.
    await waitFor(() => k.core.queue.pending() === 0);
    expect(
      await k.stack.sql`select kind from door_events where station_id = ${k.scene.station.id}`,
    ).toEqual([]);
  });

  it('to a board whose polarity is suspect is refused, with no pulse, like any open there', async () => {
    const k = await linkScene(
      {},
      { lock: { kind: 'simulator', boards: 1, faults: { invertedHook: true } } },
    );
    await waitFor(async () => (await k.core.getState()).condition === 'doors_untrusted');
    const open = vi.spyOn(k.core.hardware.board, 'open');
    const issued = await openDoor(k, 1);
    const done = await k.stack.server.link.commands.waitForOutcome(issued.id, 15_000);
    expect(done).toMatchObject({
      status: 'done',
      outcome: 'refused',
      outcomeDetail: { reason: 'suspect_polarity' },
    });
    expect(open).not.toHaveBeenCalled();
  });

  it('of a jammed door comes back did_not_open, and the door is reported like any that failed', async () => {
    const k = await linkScene();
    k.cabinet.jam(1);
    const issued = await openDoor(k, 1);
    const done = await k.stack.server.link.commands.waitForOutcome(issued.id, 15_000);
    expect(done).toMatchObject({ status: 'done', outcome: 'did_not_open' });
    await waitFor(async () => {
      const [door] = await k.stack.sql`
        select out_of_service from doors where station_id = ${k.scene.station.id} and position = 1`;
      return door?.out_of_service === true;
    });
  });

  it('to a kiosk that is away expires, is reported expired, and never runs when it reconnects', async () => {
    const k = await linkScene();
    await stopKiosk(k.core);
    const open = vi.fn();
    const issued = await openDoor(k, 1);
    await k.stack.sql`
      update link_commands set issued_at = issued_at - interval '61 seconds',
                               expires_at = expires_at - interval '61 seconds'
       where id = ${issued.id}`;
    await k.stack.server.sweepLink();
    expect(await k.stack.server.link.commands.get(issued.id)).toMatchObject({
      status: 'expired',
      outcome: 'expired',
    });
    const again = await startKiosk(k.configFile);
    vi.spyOn(again.hardware.board, 'open').mockImplementation(open);
    // Connected long enough to have been sent anything pending: its doors' states are in.
    const since = new Date();
    await waitFor(async () => ((await doorState(k, 1))?.seen_at ?? 0) > since);
    const later = await k.stack.server.link.commands.issue({
      stationCode: k.scene.station.code,
      door: null,
      kind: 'reload_screen',
      issuedBy: 'test',
    });
    await k.stack.server.link.commands.waitForOutcome(later.id, 15_000);
    expect(open).not.toHaveBeenCalled();
    expect(again.hardware.simulator!.cabinet.door(1).closed).toBe(true);
    expect((await k.stack.server.link.commands.get(issued.id))?.status).toBe('expired');
  });
});

describe('across instances', () => {
  it('a command issued on one instance reaches the kiosk connected to another', async () => {
    const stack = await startTestServer({ linkSigningKey: key.seed });
    stops.push(() => stack.close());
    const other = await startServer({
      port: 0,
      host: '127.0.0.1',
      databaseUrl: stack.databaseUrl,
      logLevel: 'silent',
      smsTransport: 'file:/dev/null',
      development: true,
      linkSigningKey: key.seed,
    });
    stops.push(() => other.close());
    const k = await linkScene({ stack, serverUrl: other.url });
    expect(other.link.hub.size).toBe(1);
    expect(stack.server.link.hub.size).toBe(0);
    const issued = await openDoor(k, 3, stack.server);
    // The issuing instance learns the outcome by notification, too.
    const done = await stack.server.link.commands.waitForOutcome(issued.id, 15_000);
    expect(done).toMatchObject({ status: 'done', outcome: 'opened' });
    expect(k.cabinet.door(3).closed).toBe(false);
  });

  it('the kiosk reconnects by itself after the service restarts, and commands reach it again', async () => {
    const stack = await startTestServer({ linkSigningKey: key.seed });
    stops.push(() => stack.close());
    const settings = {
      host: '127.0.0.1',
      databaseUrl: stack.databaseUrl,
      logLevel: 'silent',
      smsTransport: 'file:/dev/null',
      development: true,
      linkSigningKey: key.seed,
    };
    const first = await startServer({ ...settings, port: 0 });
    const k = await linkScene({ stack, serverUrl: first.url });
    await first.close();
    await waitFor(async () => (await k.core.getState()).link === 'disconnected');
    const second = await startServer({ ...settings, port: first.port });
    stops.push(() => second.close());
    await waitFor(async () => (await k.core.getState()).link === 'connected', 20_000);
    expect(second.link.hub.size).toBe(1);
    const issued = await openDoor(k, 1, second);
    expect(await second.link.commands.waitForOutcome(issued.id, 15_000)).toMatchObject({
      outcome: 'opened',
    });
  });
});

describe('a message on the link that is not the service’s command', () => {
  it('opens nothing: forged, unsigned, tampered, replayed, expired, or for another station', async () => {
    const k = await linkScene({ via: 'proxy' });
    const proxy = k.proxy!;
    const open = vi.spyOn(k.core.hardware.board, 'open');
    const rejected = (reason: string) =>
      waitFor(() => proxy.fromKiosk.find((m) => m.type === 'rejected' && m.reason === reason));
    const payload = (over: object = {}) => {
      const now = Date.now();
      return JSON.stringify({
        v: 1,
        id: randomUUID(),
        station: k.scene.station.code,
        door: 1,
        kind: 'open_door',
        args: { by: 'operator' },
        nonce: randomUUID(),
        issuedAt: new Date(now).toISOString(),
        expiresAt: new Date(now + 60_000).toISOString(),
        ...over,
      });
    };
    const signedBy = (seed: string, text: string) => ({
      type: 'command',
      payload: text,
      signature: linkSigner(seed).sign(text),
    });

    // Signed by a key that is not the service's.
    proxy.inject(signedBy(generateLinkKey().seed, payload()));
    await rejected('bad_signature');
    // No signature at all.
    proxy.inject({ type: 'command', payload: payload() });
    await rejected('unsigned');
    // The service's own command, its door changed on the way.
    const issued = await openDoor(k, 2);
    const legit = await waitFor(() => proxy.fromService.find((m) => m.type === 'command'));
    await k.stack.server.link.commands.waitForOutcome(issued.id, 15_000);
    expect(open).toHaveBeenCalledTimes(1);
    k.cabinet.closeDoor(2, false);
    proxy.inject({ ...legit, payload: String(legit.payload).replace('"door":2', '"door":1') });
    await waitFor(
      () =>
        proxy.fromKiosk.filter((m) => m.type === 'rejected' && m.reason === 'bad_signature')
          .length === 2,
    );
    // The very same command again.
    proxy.inject(legit);
    await rejected('replayed');
    // Signed by the service's key (stolen from a backup, say) but past its expiry…
    const stale = payload({
      issuedAt: new Date(Date.now() - 120_000).toISOString(),
      expiresAt: new Date(Date.now() - 60_000).toISOString(),
    });
    proxy.inject(signedBy(key.seed, stale));
    await waitFor(() =>
      proxy.fromKiosk.find((m) => m.type === 'outcome' && m.outcome === 'expired'),
    );
    // …or naming another station.
    proxy.inject(signedBy(key.seed, payload({ station: 'ELSEWHERE' })));
    await waitFor(() =>
      proxy.fromKiosk.find((m) => m.type === 'outcome' && m.outcome === 'refused'),
    );
    expect(open).toHaveBeenCalledTimes(1);
    expect(k.cabinet.door(1).closed).toBe(true);
    expect(k.cabinet.door(2).closed).toBe(true);
  });
});

describe('the other commands', () => {
  it('upload the last minutes of logs, reload the screen, refresh the configuration', async () => {
    const k = await linkScene();
    const run = async (kind: 'upload_logs' | 'reload_screen' | 'refresh_config', args = {}) => {
      const issued = await k.stack.server.link.commands.issue({
        stationCode: k.scene.station.code,
        door: null,
        kind,
        args,
        issuedBy: 'test',
      });
      return k.stack.server.link.commands.waitForOutcome(issued.id, 15_000);
    };
    await k.stack.sql`update stations set support_phone = '+383 38 555 999'
                       where id = ${k.scene.station.id}`;
    expect(await run('refresh_config')).toMatchObject({ outcome: 'done' });
    expect((await k.core.getState()).config?.support_phone).toBe('+383 38 555 999');
    expect(await run('reload_screen')).toMatchObject({ outcome: 'done' });
    expect((await k.core.getState()).screenReloads).toBe(1);
    const logs = await run('upload_logs', { minutes: 5 });
    expect(logs).toMatchObject({ outcome: 'done' });
    const [bundle] = await k.stack.sql<{ body: Buffer }[]>`
      select body from link_log_bundles where command_id = ${logs!.id}`;
    const lines = gunzipSync(bundle!.body).toString('utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.some((l) => (JSON.parse(l) as { msg?: string }).msg === 'link up')).toBe(true);
  });

  it('a changed grid is a hint on the link: the kiosk polls at once, though its idle poll is long', async () => {
    const k = await linkScene({}, { cabinetPollSeconds: 600, cabinetPollSecondsWithLink: 600 });
    await waitFor(async () => (await k.core.getState()).cabinet !== null);
    const parcel = await k.stack.shipment(k.scene.org.id, k.scene.station.id);
    const answer = await k.scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: k.scene.courier.number,
      trackingNumber: parcel.tracking_number,
    });
    expect(answer.status).toBe(200);
    const door = answer.body.door as number;
    await waitFor(async () => {
      const grid = (await k.core.getState()).cabinet;
      return grid?.doors.find((d) => d.position === door)?.status === 'occupied';
    });
  });
});
