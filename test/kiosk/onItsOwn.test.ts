import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT, startServer, type RunningServer } from '@locker/server';
import { admin, client, waitFor } from '@locker/server/testing';
import { KioskCore, loadKioskConfig } from '@locker/kiosk';
import { kioskScene, launchBrowser, typeOnKeypad, type KioskScene } from './fixture';
import { LANGUAGES, checkScreen } from './screenChecks';
import { queuedReports, restart } from './restart';

// The locker working on its own through an outage (issue 25): the real server stopped
// and started again, the kiosk core, the simulated cabinet.

/** A merchant's webhook receiver: every event body it was sent. */
async function webhookReceiver(): Promise<{ url: string; events: any[]; server: Server }> {
  const events: any[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      events.push(JSON.parse(body));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, events, server };
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

const SHOTS = path.join(REPO_ROOT, 'test-results/screens');
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** The kiosk holds the verifiers of `n` parcels. */
const holding = (core: KioskCore, n: number) =>
  waitFor(() => (core.offline.held() === n ? true : undefined), 15_000);

/**
 * A kiosk that fetches its offline sets at its first heartbeat and then only when the test
 * asks, as a production kiosk's every 15 s leaves a window after each change; stopped
 * after the test.
 */
async function askingKiosk(doors: string): Promise<KioskScene> {
  const k = await kioskScene(doors, {}, { cabinetPollSeconds: 3600 });
  cleanup.push(
    () => k.host.close(),
    () => k.core.stop(),
  );
  return k;
}

/** The kiosk asked for its pickup set until it holds the verifiers of `n` parcels. */
const fetchedHolding = (core: KioskCore, n: number) =>
  waitFor(async () => {
    await core.offline.sync();
    return core.offline.held() === n ? true : undefined;
  });

describe('a locker on its own', () => {
  it('hands out a parcel by its code while the service is down, refuses the rest, and reports it on return', async () => {
    const k: KioskScene = await kioskScene('1:S,2:S,3:M');
    let core = k.core;
    const hook = await webhookReceiver();
    cleanup.push(
      () => new Promise((r) => hook.server.close(r)),
      () => k.host.close(),
      () => core.stop(),
    );
    const endpoint = await client(k.stack.url, k.scene.org.apiKey).post('/api/v1/webhooks', {
      url: hook.url,
    });
    expect(endpoint.status).toBe(201);
    const a = await k.scene.deposit();
    const b = await k.scene.deposit();
    await holding(core, 2);
    // The deposit set read after both went in: nothing left for a courier to bring. (The
    // first heartbeat's read may have fallen between a booking and its deposit; this read
    // runs after it, never before: one fetch at a time.)
    await core.deposits.sync();
    expect(core.deposits.ready).toBe(false);

    await k.stack.server.close();
    // The first call finds the service gone: the kiosk checks the code itself.
    expect(await core.pickup('00000000')).toEqual({ kind: 'invalid_code' });
    // Nothing is expected here for a courier to bring: deposits need the service.
    expect((await core.getState()).onItsOwn).toEqual({ pickup: true, deposit: false });
    const before = Date.now();
    expect(await core.pickup(a.code)).toEqual({ kind: 'door_open', door: a.door });
    k.cabinet.closeDoor(a.door, false);
    const [queued] = await waitFor(() => {
      const q = queuedReports(core.config.dataDir);
      return q.length === 1 ? q : undefined;
    });
    expect(queued!.body).toEqual({
      shipmentId: a.shipment.id,
      collected: true,
      occurred_at: queued!.occurred_at,
    });
    expect(Date.parse(queued!.occurred_at)).toBeGreaterThanOrEqual(before);
    // Collected here: never offered again, with the one refusal of every wrong code.
    expect(await core.pickup(a.code)).toEqual({ kind: 'invalid_code' });
    // Attempts 4 to 10 of this minute: wrong codes, refused as wrong.
    for (let i = 4; i <= 10; i++)
      expect(await core.pickup(String(10_000_000 + i))).toEqual({ kind: 'invalid_code' });
    // The 11th is refused by the limit, even with a valid code; and still after a restart.
    const limited = await core.pickup(b.code);
    expect(limited).toMatchObject({ kind: 'rate_limited' });
    expect((limited as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
    expect((limited as { retryAfterSeconds: number }).retryAfterSeconds).toBeLessThanOrEqual(60);
    await k.host.close();
    await core.stop();
    core = await KioskCore.start(loadKioskConfig(k.configFile), { stdout: false });
    expect(await core.pickup(b.code)).toMatchObject({ kind: 'rate_limited' });

    // The service is back: the queued confirm goes, with the time the door shut. (Its
    // webhooks may go to the receiver on loopback, as the test stack's.)
    const revived = await startServer({
      port: Number(new URL(k.stack.url).port),
      host: '127.0.0.1',
      databaseUrl: k.stack.databaseUrl,
      logLevel: 'silent',
      smsTransport: 'file:/dev/null',
      development: true,
      webhookAllowPrivate: true,
    });
    cleanup.push(() => revived.close());
    await waitFor(async () => ((await core.getState()).pendingReports === 0 ? true : undefined));
    const tracking = (
      await client(revived.url, k.scene.org.apiKey).get(
        `/api/v1/track/${a.shipment.tracking_number}`,
      )
    ).body;
    expect(tracking.status).toBe('collected');
    expect(tracking.events.at(-1)).toEqual({
      status: 'collected',
      occurred_at: queued!.occurred_at,
      station_code: k.scene.station.code,
    });
    // And the merchant's webhook follows.
    const collected = await waitFor(
      () =>
        hook.events.find(
          (e) => e.type === 'shipment.collected' && e.data.shipment.id === a.shipment.id,
        ) as { data: { shipment: Record<string, unknown> } } | undefined,
      20_000,
    );
    expect(collected.data.shipment.status).toBe('collected');
    expect((await core.getState()).onItsOwn).toBeNull();
    const [alerts] = await revived.sql<{ n: number }[]>`
      select count(*)::int as n from alerts where kind = 'offline_pickup_conflict'`;
    expect(alerts!.n).toBe(0);
  });

  it('alerts operations with both stories when the service handled the parcel otherwise meanwhile', async () => {
    const k = await kioskScene('1:S,2:S');
    cleanup.push(
      () => k.host.close(),
      () => k.core.stop(),
    );
    const a = await k.scene.deposit();
    await holding(k.core, 1);
    await k.stack.server.close();

    expect(await k.core.pickup(a.code)).toEqual({ kind: 'door_open', door: a.door });
    k.cabinet.closeDoor(a.door, false);
    await waitFor(() => (queuedReports(k.core.config.dataDir).length === 1 ? true : undefined));

    // Meanwhile, through another instance and another terminal of the station, the door
    // is reported jammed just after the deposit: the service undoes the deposit.
    const other: RunningServer = await startServer({
      port: 0,
      host: '127.0.0.1',
      databaseUrl: k.stack.databaseUrl,
      logLevel: 'silent',
      smsTransport: 'file:/dev/null',
      development: true,
    });
    const second = await admin.createTerminal(other.sql, k.scene.station.code);
    const fault = await client(other.url, second.token).post('/terminal/v1/door/fault', {
      position: a.door,
    });
    expect(fault.status).toBe(200);
    await other.close();

    const revived = await restart(k.stack.url, k.stack.databaseUrl);
    cleanup.push(() => revived.close());
    await waitFor(async () => ((await k.core.getState()).pendingReports === 0 ? true : undefined));
    // The service's story stands (the deposit undone), the kiosk's is told beside it.
    const [shipment] = await revived.sql`select status from shipments where id = ${a.shipment.id}`;
    expect(shipment?.status).toBe('booked');
    const alerts = await revived.sql<{ message: string }[]>`
      select message from alerts where kind = 'offline_pickup_conflict'
         and station_id = ${k.scene.station.id}`;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.message).toContain(a.shipment.tracking_number);
    expect(alerts[0]!.message).toContain('the kiosk reports it collected at');
    expect(alerts[0]!.message).toContain('the service has it booked');
    // The kiosk keeps its own story, and leaves the parcel to the service's word now.
    expect(k.core.offline.handout(a.shipment.id)).toMatchObject({ state: 'service_404' });
    expect(k.core.offline.handedOut(a.shipment.id)).toBe(false);
  });

  it('never opens a door again, on its own, for a code collected there online a moment before the outage', async () => {
    const k = await askingKiosk('1:S,2:S,3:M');
    const a = await k.scene.deposit();
    const c = await k.scene.deposit();
    expect([a.door, c.door]).toEqual([1, 2]);
    await fetchedHolding(k.core, 2);
    // Online: A's recipient collects from door 1, and the confirm goes out. A set fetched
    // while the door is open still has A (the service has it awaiting pickup until then).
    expect(await k.core.pickup(a.code)).toEqual({ kind: 'door_open', door: 1 });
    await k.core.offline.sync();
    expect(k.core.offline.held()).toBe(2);
    k.cabinet.closeDoor(1, false);
    await waitFor(async () => {
      const [row] = await k.stack.sql<{ status: string }[]>`
        select status from shipments where id = ${a.shipment.id}`;
      return row!.status === 'collected' ? true : undefined;
    });
    await waitFor(async () => ((await k.core.getState()).pendingReports === 0 ? true : undefined));
    // A courier puts another recipient's parcel into door 1; then the service goes away.
    const b = await k.scene.deposit();
    expect(b.door).toBe(1);
    await k.stack.server.close();

    // A's code no longer opens door 1 (B's parcel is in it); C's still opens door 2.
    expect(await k.core.pickup(a.code)).toEqual({ kind: 'invalid_code' });
    expect(await k.core.pickup(c.code)).toEqual({ kind: 'door_open', door: 2 });
    k.cabinet.closeDoor(2, false);
  });

  it('never opens a door, on its own, for an old code once this kiosk gave that door to a new deposit', async () => {
    const k = await askingKiosk('1:S,2:S,3:M');
    const a = await k.scene.deposit();
    const c = await k.scene.deposit();
    await fetchedHolding(k.core, 2);
    // A is collected elsewhere than through this kiosk's screen (its set still has A's code).
    const picked = await k.scene.terminal.api.post('/terminal/v1/pickup', { code: a.code });
    expect(picked.body.door).toBe(1);
    await k.scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: a.shipment.id,
      collected: true,
    });
    // A courier deposits at this kiosk: door 1, empty, gets B; then the service goes away.
    const b = await k.stack.shipment(k.scene.org.id, k.scene.station.id, { size: 'S' });
    const courier = k.scene.courier.number;
    expect(await k.core.verifyCourier(courier)).toMatchObject({ kind: 'verified' });
    expect(await k.core.deposit(courier, b.tracking_number)).toEqual({
      kind: 'door_open',
      door: 1,
    });
    k.cabinet.closeDoor(1, true);
    await k.stack.server.close();

    expect(await k.core.pickup(a.code)).toEqual({ kind: 'invalid_code' });
    expect(await k.core.pickup(c.code)).toEqual({ kind: 'door_open', door: 2 });
    k.cabinet.closeDoor(2, false);
  });

  it('opens a door on its own for a code whose parcel stayed in it when opened online', async () => {
    const k = await askingKiosk('1:S,2:S');
    const a = await k.scene.deposit();
    await fetchedHolding(k.core, 1);
    // Opened online, shut with the parcel still inside: the service is told it stayed.
    expect(await k.core.pickup(a.code)).toEqual({ kind: 'door_open', door: 1 });
    k.cabinet.closeDoor(1, true);
    // Its door session reported, and the report answered.
    await waitFor(async () => {
      const state = await k.core.getState();
      return state.session?.phase === 'reported' && state.pendingReports === 0 ? true : undefined;
    });
    await k.stack.server.close();
    expect(await k.core.pickup(a.code)).toEqual({ kind: 'door_open', door: 1 });
    k.cabinet.closeDoor(1, false);
  });

  it('never opens a door, on its own, for an old code once it took a parcel into that door itself', async () => {
    const k = await askingKiosk('1:S,2:S,3:M');
    const a = await k.scene.deposit();
    const c = await k.scene.deposit();
    await fetchedHolding(k.core, 2);
    // A is collected elsewhere; the kiosk's deposit set is read after it (door 1 free, B
    // expected), its pickup set not (it still has A's code for door 1).
    const picked = await k.scene.terminal.api.post('/terminal/v1/pickup', { code: a.code });
    expect(picked.body.door).toBe(1);
    await k.scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: a.shipment.id,
      collected: true,
    });
    const b = await k.stack.shipment(k.scene.org.id, k.scene.station.id, { size: 'S' });
    await k.core.deposits.sync();
    const courier = k.scene.courier.number;
    expect(await k.core.verifyCourier(courier)).toMatchObject({ kind: 'verified' });
    await k.stack.server.close();
    // On its own: B into door 1, the smallest free door; A's code no longer opens it.
    expect(await k.core.deposit(courier, b.tracking_number)).toEqual({
      kind: 'door_open',
      door: 1,
    });
    k.cabinet.closeDoor(1, true);
    expect(await k.core.pickup(a.code)).toEqual({ kind: 'invalid_code' });
    expect(await k.core.pickup(c.code)).toEqual({ kind: 'door_open', door: 2 });
    k.cabinet.closeDoor(2, false);
  });

  it('opens a door on its own for a code whose door would not open online as the network dropped', async () => {
    const k = await askingKiosk('1:S,2:S');
    const a = await k.scene.deposit();
    await fetchedHolding(k.core, 1);
    // The door is stuck and the network drops as it fails: its reports wait in the queue.
    k.cabinet.jam(a.door);
    const board = k.core.hardware.board;
    const realOpen = board.open.bind(board);
    vi.spyOn(board, 'open').mockImplementationOnce(async (position) => {
      const result = await realOpen(position);
      await k.stack.server.close();
      return result;
    });
    expect(await k.core.pickup(a.code)).toEqual({ kind: 'door_failed', door: a.door });
    // Freed by a technician's hand: nothing left the door, so the code still opens it.
    k.cabinet.jam(a.door, false);
    expect(await k.core.pickup(a.code)).toEqual({ kind: 'door_open', door: a.door });
    k.cabinet.closeDoor(a.door, false);
  });
});

describe('deposits on its own', () => {
  it("takes a courier's parcel in while the service is down; the code SMS goes out once, after; a taken door is alerted", async () => {
    const k = await kioskScene('1:S,2:S,3:M');
    cleanup.push(
      () => k.host.close(),
      () => k.core.stop(),
    );
    // The courier deposits here (so the kiosk keeps their verifier); two parcels expected,
    // booked before that deposit: any deposit set the service keeps after it (the deposit
    // changes the cabinet version, noted before its answer) holds them.
    const first = await k.stack.shipment(k.scene.org.id, k.scene.station.id);
    const p = await k.stack.shipment(k.scene.org.id, k.scene.station.id, { size: 'M' });
    const q = await k.stack.shipment(k.scene.org.id, k.scene.station.id, { size: 'S' });
    const deposited = await k.scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: k.scene.courier.number,
      trackingNumber: first.tracking_number,
    });
    expect(deposited.body.door).toBe(1);
    await k.core.deposits.sync();
    expect(k.core.deposits.ready).toBe(true);
    // The first parcel's verifier, made by the service's worker just after its deposit.
    await waitFor(async () => {
      await k.core.offline.sync();
      return k.core.offline.ready ? true : undefined;
    });
    // Booked after the kiosk's last poll: the service will put it in door 2 meanwhile.
    const r = await k.stack.shipment(k.scene.org.id, k.scene.station.id, { size: 'S' });
    await k.stack.server.close();

    const courier = k.scene.courier.number;
    // Not a courier of this station: only the service could tell, so no "unknown courier".
    expect(await k.core.verifyCourier('99999')).toEqual({ kind: 'unavailable' });
    expect(await k.core.verifyCourier(courier)).toEqual({
      kind: 'verified',
      courierName: '',
      toTakeOut: null,
    });
    expect((await k.core.getState()).onItsOwn).toEqual({ pickup: true, deposit: true });
    expect(await k.core.deposit(courier, '0000000000000')).toEqual({ kind: 'not_found' });
    // The smallest free door the parcel fits, from what the kiosk knows: M goes to 3.
    expect(await k.core.deposit(courier, p.tracking_number)).toEqual({
      kind: 'door_open',
      door: 3,
    });
    k.cabinet.closeDoor(3, true);
    expect(await k.core.deposit(courier, q.tracking_number)).toEqual({
      kind: 'door_open',
      door: 2,
    });
    k.cabinet.closeDoor(2, true);
    // Both at once: nothing left for a third parcel of either size.
    expect(await k.core.deposit(courier, p.tracking_number)).toEqual({ kind: 'not_found' });
    const queued = await waitFor(() => {
      const reports = queuedReports(k.core.config.dataDir);
      return reports.length === 2 ? reports : undefined;
    });
    expect(queued.map((r) => [r.kind, r.body.door])).toEqual([
      ['offline_deposit', 3],
      ['offline_deposit', 2],
    ]);

    // Meanwhile the service, through another instance and terminal, puts a parcel in door 2.
    const other = await startServer({
      port: 0,
      host: '127.0.0.1',
      databaseUrl: k.stack.databaseUrl,
      logLevel: 'silent',
      smsTransport: 'file:/dev/null',
      development: true,
    });
    const second = await admin.createTerminal(other.sql, k.scene.station.code);
    const online = await client(other.url, second.token).post('/terminal/v1/deposit', {
      courierNo: courier,
      trackingNumber: r.tracking_number,
    });
    expect(online.body.door).toBe(2);
    await other.close();

    const revived = await startServer({
      port: Number(new URL(k.stack.url).port),
      host: '127.0.0.1',
      databaseUrl: k.stack.databaseUrl,
      logLevel: 'silent',
      smsTransport: `file:${k.stack.smsFile}`,
      development: true,
    });
    cleanup.push(() => revived.close());
    await waitFor(async () => ((await k.core.getState()).pendingReports === 0 ? true : undefined));
    // P is recorded in door 3 at the time it went in, and only now its code goes out: once.
    const [recorded] = await revived.sql<{ status: string; slot_no: number; deposited_at: Date }[]>`
      select status, slot_no, deposited_at from shipments where id = ${p.id}`;
    expect(recorded).toMatchObject({ status: 'ready_for_pickup', slot_no: 3 });
    expect(recorded!.deposited_at.toISOString()).toBe(queued[0]!.occurred_at);
    const code = await waitFor(() => {
      const sms = k.stack.sentSms().find((m) => m.to === p.recipient_phone);
      return sms ? /\b(\d{8})\b/.exec(sms.text)?.[1] : undefined;
    }, 20_000);
    await waitFor(async () => {
      const [left] = await revived.sql<{ n: number }[]>`
        select count(*)::int as n from outbox
         where channel = 'sms' and shipment_id = ${p.id} and delivered_at is null`;
      return left!.n === 0 ? true : undefined;
    });
    expect(k.stack.sentSms().filter((m) => m.to === p.recipient_phone)).toHaveLength(1);
    expect(k.core.deposits.deposit(p.tracking_number)?.state).toBe('recorded');
    // Q's door was taken meanwhile: not recorded, not lost, alerted; the door not booked twice.
    const [qRow] = await revived.sql`select status from shipments where id = ${q.id}`;
    expect(qRow?.status).toBe('booked');
    const alerts = await revived.sql<{ message: string }[]>`
      select message from alerts where kind = 'offline_deposit_conflict'
         and station_id = ${k.scene.station.id}`;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.message).toContain(`parcel ${q.tracking_number}`);
    expect(alerts[0]!.message).toContain(`the service has door 2 holding ${r.tracking_number}`);
    expect(k.core.deposits.deposit(q.tracking_number)).toMatchObject({
      state: 'service_404',
      door: 2,
    });
    expect(k.stack.sentSms().some((m) => m.to === q.recipient_phone)).toBe(false);
    // Online again: P's code opens door 3.
    expect(await k.core.pickup(code)).toEqual({ kind: 'door_open', door: 3 });
  });

  it('does not offer a door this kiosk filled online a moment before the outage, nor take its parcel in again', async () => {
    const k = await kioskScene('1:S,2:S,3:M');
    cleanup.push(
      () => k.host.close(),
      () => k.core.stop(),
    );
    // The courier deposits here first (so the kiosk keeps their verifier); two S parcels
    // are expected; the kiosk's deposit set is read with doors 2 and 3 free.
    const first = await k.stack.shipment(k.scene.org.id, k.scene.station.id);
    const p = await k.stack.shipment(k.scene.org.id, k.scene.station.id, { size: 'S' });
    const q = await k.stack.shipment(k.scene.org.id, k.scene.station.id, { size: 'S' });
    const courier = k.scene.courier.number;
    const deposited = await k.scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: courier,
      trackingNumber: first.tracking_number,
    });
    expect(deposited.body.door).toBe(1);
    await k.core.deposits.sync();
    expect(k.core.deposits.ready).toBe(true);
    // Online, at this kiosk: P goes into door 2, well within the minute before the next set.
    expect(await k.core.verifyCourier(courier)).toMatchObject({ kind: 'verified' });
    expect(await k.core.deposit(courier, p.tracking_number)).toEqual({
      kind: 'door_open',
      door: 2,
    });
    k.cabinet.closeDoor(2, true);
    await k.stack.server.close();

    // On its own: P is not taken in twice, and Q gets door 3, not the door P is in.
    expect(await k.core.deposit(courier, p.tracking_number)).toEqual({ kind: 'not_found' });
    expect(await k.core.deposit(courier, q.tracking_number)).toEqual({
      kind: 'door_open',
      door: 3,
    });
    k.cabinet.closeDoor(3, true);
    expect(k.core.deposits.deposit(q.tracking_number)).toMatchObject({ state: 'queued', door: 3 });
  });

  it("fetches the whole set after its own online deposit, so a deposit undone since is the service's again", async () => {
    const k = await kioskScene('1:S,2:S,3:M');
    cleanup.push(
      () => k.host.close(),
      () => k.core.stop(),
    );
    const first = await k.stack.shipment(k.scene.org.id, k.scene.station.id);
    const p = await k.stack.shipment(k.scene.org.id, k.scene.station.id, { size: 'S' });
    const courier = k.scene.courier.number;
    await k.scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: courier,
      trackingNumber: first.tracking_number,
    });
    await k.core.deposits.sync();
    expect(await k.core.verifyCourier(courier)).toMatchObject({ kind: 'verified' });
    expect(await k.core.deposit(courier, p.tracking_number)).toEqual({
      kind: 'door_open',
      door: 2,
    });
    // Shut empty: the service undoes it, and the station's set is again what it was.
    k.cabinet.closeDoor(2, false);
    await waitFor(async () => {
      const [row] = await k.stack.sql<{ status: string }[]>`
        select status from shipments where id = ${p.id}`;
      return row!.status === 'booked' ? true : undefined;
    });
    // The set as the service has it now, not the kiosk's note (a 304 would have kept it).
    await k.core.deposits.sync();
    await k.stack.server.close();
    expect(await k.core.deposit(courier, p.tracking_number)).toEqual({
      kind: 'door_open',
      door: 2,
    });
    k.cabinet.closeDoor(2, true);
  });

  it("does not offer the door this kiosk holds for a customer's return", async () => {
    const k = await kioskScene('1:S,2:S,3:M');
    cleanup.push(
      () => k.host.close(),
      () => k.core.stop(),
    );
    // A parcel collected here (its courier deposited it: the kiosk keeps their verifier),
    // and one S parcel expected; the set read with every door free.
    const back = await k.scene.collected();
    const q = await k.stack.shipment(k.scene.org.id, k.scene.station.id, { size: 'S' });
    await k.core.deposits.sync();
    expect(k.core.deposits.ready).toBe(true);
    const started = await k.core.startReturn(back.tracking_number);
    expect(started).toMatchObject({ kind: 'door_open', door: 1 });
    k.cabinet.closeDoor(1, true);
    // The courier, verified online, goes on depositing when the service goes away.
    const courier = k.scene.courier.number;
    expect(await k.core.verifyCourier(courier)).toMatchObject({ kind: 'verified' });
    await k.stack.server.close();
    expect(await k.core.deposit(courier, q.tracking_number)).toEqual({
      kind: 'door_open',
      door: 2,
    });
    k.cabinet.closeDoor(2, true);
  });
});

describe('the screen of a locker on its own', () => {
  it('tells customer and courier plainly, in four languages, and the code still opens the door', async () => {
    const k = await kioskScene('1:S,2:S');
    const page = await browser.newPage({ viewport: { width: 1080, height: 1920 } });
    cleanup.push(
      () => k.host.close(),
      () => k.core.stop(),
      () => page.close(),
    );
    const a = await k.scene.deposit();
    await holding(k.core, 1);
    await k.stack.server.close();
    // The kiosk notices at its next call (the heartbeat comes every second here).
    await waitFor(async () => ((await k.core.getState()).onItsOwn ? true : undefined));
    const said = {
      sq: 'Po punon më vete',
      sr: 'Radi samostalno',
      tr: 'Kendi başına çalışıyor',
      en: 'Working on its own',
    };
    for (const lang of LANGUAGES) {
      await page.goto(`${k.host.url}?lang=${lang}`);
      await page.getByTestId('on-its-own').getByText(said[lang]).waitFor();
      // No out-of-service screen: what works alone is on, what cannot is off.
      expect(await page.locator('[data-screen="out-of-service"]').count()).toBe(0);
      const buttons = page.locator('.home-actions button');
      expect(await buttons.nth(0).isEnabled()).toBe(true);
      // Returns need the service; so do couriers, with no parcel expected here.
      expect(await buttons.nth(1).isDisabled()).toBe(true);
      expect(await buttons.nth(2).isDisabled()).toBe(true);
      await checkScreen(page, `home on its own (${lang})`);
      await page.screenshot({ path: path.join(SHOTS, `portrait-${lang}-home-on-its-own.png`) });
    }
    await page.getByRole('button', { name: 'Pick up a parcel' }).click();
    await page.getByText('The locker is working on its own: your code works as usual.').waitFor();
    await typeOnKeypad(page, a.code);
    await page.getByRole('button', { name: 'OK' }).click();
    await page.getByRole('heading', { name: `Door ${a.door} is open` }).waitFor();
    // Four languages, each through axe and the layout checks: Chromium's work.
  }, 180_000);
});
