import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  setTerminalStatus,
  startTestServer,
  waitFor,
  type TestStack,
} from '@locker/server/testing';
import { TerminalClient } from './client';
import { ReportQueue } from './reportQueue';
import { openKioskDatabase } from './database';

const silentLog = pino({ level: 'silent' });
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestServer();
});
afterAll(() => stack.close());

function queueFor(token: string, baseUrl = stack.url, now?: () => number) {
  const db = openKioskDatabase(mkdtempSync(path.join(tmpdir(), 'queue-')));
  const stuck: string[] = [];
  const queue = new ReportQueue(
    db,
    new TerminalClient(baseUrl, token, silentLog),
    { changed: () => {}, stuck: (c) => stuck.push(c.reason) },
    now,
  );
  return { db, queue, stuck };
}

/** A return started at the scene's station: its door held for the customer's parcel. */
async function startedReturn(scene: Awaited<ReturnType<TestStack['scene']>>): Promise<string> {
  const parcel = await scene.collected();
  const started = await scene.terminal.api.post('/terminal/v1/return', {
    trackingNumber: parcel.tracking_number,
  });
  expect(started.status).toBe(200);
  return started.body.returnId;
}

/** The queue's rows as stored, oldest first. */
const rowsOf = (db: ReturnType<typeof queueFor>['db']) =>
  (
    db.prepare('select kind, body, attempts from confirms order by id').all() as {
      kind: string;
      body: string;
      attempts: number;
    }[]
  ).map((r) => ({ ...r, body: JSON.parse(r.body) as Record<string, unknown> }));

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
/**
 * A moment after everything the test did so far. A report dated before its parcel's
 * deposit would be recorded at its arrival instead (migration 013: a history never runs
 * backwards), so the reports here are dated after the deposits they follow.
 */
const momentLater = async () => {
  await new Promise((resolve) => setTimeout(resolve, 5));
  return new Date();
};

describe('ReportQueue', () => {
  it('sends a door confirm with its door-close time and forgets it on 200, and forgets a repeat on 404', async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit();
    const { queue } = queueFor(scene.terminal.token);
    const closedAt = await momentLater();
    queue.add('door', { shipmentId: shipment.id, collected: true }, closedAt);
    queue.add('door', { shipmentId: shipment.id, collected: true }, closedAt);
    expect(queue.pending()).toBe(2);
    await queue.replay();
    expect(queue.pending()).toBe(0);
    const [row] =
      await stack.sql`select status, collected_at from shipments where id = ${shipment.id}`;
    expect(row).toEqual({ status: 'collected', collected_at: closedAt });
  });

  it('keeps reports, in order, while the service is unreachable, and delivers them in order once it is back', async () => {
    const scene = await stack.scene('1:S,2:S');
    const returnId = await startedReturn(scene);
    const { shipment } = await scene.deposit();
    const unreachable = queueFor(scene.terminal.token, 'http://127.0.0.1:9');
    // The customer cancelled the return (door released), a parcel was collected, then
    // the return's door was seen to hold the parcel after all.
    const cancelledAt = await momentLater();
    const closedAt = await momentLater();
    const foundAt = await momentLater();
    unreachable.queue.add('return', { returnId, deposited: false }, cancelledAt);
    unreachable.queue.add('door', { shipmentId: shipment.id, collected: true }, closedAt);
    unreachable.queue.add('return', { returnId, deposited: true }, foundAt);
    await unreachable.queue.retryNow();
    // Kept as written; the return's second report was not even tried while its first waits.
    expect(rowsOf(unreachable.db)).toEqual([
      {
        kind: 'return',
        body: expect.objectContaining({ returnId, deposited: false }),
        attempts: 1,
      },
      {
        kind: 'door',
        body: expect.objectContaining({ shipmentId: shipment.id, collected: true }),
        attempts: 1,
      },
      { kind: 'return', body: expect.objectContaining({ returnId, deposited: true }), attempts: 0 },
    ]);

    // The same rows, read by a kiosk that can reach the service again.
    const back = new ReportQueue(
      unreachable.db,
      new TerminalClient(stack.url, scene.terminal.token, silentLog),
      { changed: () => {}, stuck: () => {} },
    );
    await back.retryNow();
    expect(back.pending()).toBe(0);
    const [collected] =
      await stack.sql`select status, collected_at from shipments where id = ${shipment.id}`;
    expect(collected).toEqual({ status: 'collected', collected_at: closedAt });
    // Applied cancel first, the return stays open; the other way round it would be recorded.
    const [ret] = await stack.sql`select status from returns where id = ${returnId}`;
    expect(ret?.status).toBe('open');
  });

  it("holds a parcel's later report back while an earlier one waits out its backoff", async () => {
    const scene = await stack.scene('1:S');
    const returnId = await startedReturn(scene);
    let now = Date.now();
    const { queue, db } = queueFor(scene.terminal.token, stack.url, () => now);
    // The first report meets the offline mark (401): kept, not due again for a second.
    await setTerminalStatus(stack.sql, scene.terminal.id, 'offline');
    await waitFor(
      async () => (await scene.terminal.api.get('/terminal/v1/cabinet')).status === 401,
    );
    queue.add('return', { returnId, deposited: false }, minutesAgo(2));
    await queue.replay();
    expect(rowsOf(db).map((r) => r.attempts)).toEqual([1]);
    // The mark clears; the parcel's next report is written while the first still waits.
    expect((await scene.terminal.api.post('/terminal/v1/heartbeat')).status).toBe(200);
    await waitFor(
      async () => (await scene.terminal.api.get('/terminal/v1/cabinet')).status === 200,
    );
    queue.add('return', { returnId, deposited: true }, minutesAgo(1));
    await queue.replay();
    // Due, but held back behind the earlier one: it would overtake it.
    expect(rowsOf(db).map((r) => [r.body.deposited, r.attempts])).toEqual([
      [false, 1],
      [true, 0],
    ]);
    now += 1000;
    await queue.replay();
    expect(queue.pending()).toBe(0);
    const [ret] = await stack.sql`select status from returns where id = ${returnId}`;
    expect(ret?.status).toBe('open');
  });

  it('applies two reports of one parcel in the order they happened, never side by side', async () => {
    const scene = await stack.scene('1:S');
    const returnId = await startedReturn(scene);
    const { queue } = queueFor(scene.terminal.token);
    // The customer cancelled (door released), then the kiosk saw nothing more: applied in
    // this order the return stays open; the other way round it would be recorded.
    queue.add('return', { returnId, deposited: false }, minutesAgo(2));
    queue.add('return', { returnId, deposited: true }, minutesAgo(1));
    await queue.replay();
    expect(queue.pending()).toBe(0);
    const [ret] = await stack.sql`select status from returns where id = ${returnId}`;
    expect(ret?.status).toBe('open');
  });

  it('keeps a report refused with 401 while the terminal is marked offline', async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit();
    await setTerminalStatus(stack.sql, scene.terminal.id, 'offline');
    const { queue } = queueFor(scene.terminal.token);
    queue.add('door', { shipmentId: shipment.id, collected: true }, minutesAgo(1));
    // The mark reaches the server's terminal cache by a database notification: wait until
    // the server refuses this terminal, as the replay then meets it.
    await waitFor(
      async () => (await scene.terminal.api.get('/terminal/v1/cabinet')).status === 401,
    );
    await queue.retryNow();
    expect(queue.pending()).toBe(1);
    // The kiosk's heartbeat clears the mark; then the replay gets through.
    expect((await scene.terminal.api.post('/terminal/v1/heartbeat')).status).toBe(200);
    await waitFor(
      async () => (await scene.terminal.api.get('/terminal/v1/cabinet')).status === 200,
    );
    await queue.retryNow();
    expect(queue.pending()).toBe(0);
  });

  it('sets aside, with an alert, a report older than 7 days instead of dropping it', async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit();
    const { queue, stuck, db } = queueFor(scene.terminal.token);
    queue.add(
      'door',
      { shipmentId: shipment.id, collected: true },
      new Date(Date.now() - 8 * 24 * 3600_000),
    );
    await queue.replay();
    expect(queue.pending()).toBe(0);
    expect(queue.stuck()).toBe(1);
    expect(stuck[0]).toMatch(/older than 7 days/);
    expect(db.prepare('select kind, body from stuck_confirms').get()).toMatchObject({
      kind: 'door',
      body: expect.stringContaining(shipment.id),
    });
    const [row] = await stack.sql`select status from shipments where id = ${shipment.id}`;
    expect(row?.status).toBe('ready_for_pickup');
  });
});
