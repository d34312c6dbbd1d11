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
import { ConfirmQueue } from './confirmQueue';
import { openKioskDatabase } from './database';

const silentLog = pino({ level: 'silent' });
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestServer();
});
afterAll(() => stack.close());

function queueFor(token: string, baseUrl = stack.url) {
  const db = openKioskDatabase(mkdtempSync(path.join(tmpdir(), 'queue-')));
  const stuck: string[] = [];
  const queue = new ConfirmQueue(db, new TerminalClient(baseUrl, token, silentLog), {
    changed: () => {},
    stuck: (c) => stuck.push(c.reason),
  });
  return { db, queue, stuck };
}

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

describe('ConfirmQueue', () => {
  it('sends a confirm with its door-close time and forgets it on 200, and forgets a repeat on 404', async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit();
    const { queue } = queueFor(scene.terminal.token);
    const closedAt = minutesAgo(3);
    queue.add('door', { shipmentId: shipment.id, collected: true }, closedAt);
    queue.add('door', { shipmentId: shipment.id, collected: true }, closedAt);
    expect(queue.pending()).toBe(2);
    await queue.replay();
    expect(queue.pending()).toBe(0);
    const [row] =
      await stack.sql`select status, collected_at from shipments where id = ${shipment.id}`;
    expect(row).toEqual({ status: 'collected', collected_at: closedAt });
  });

  it('keeps confirms, in order, while the service is unreachable, and delivers them once it is back', async () => {
    const scene = await stack.scene('1:S,2:S');
    const first = await scene.deposit();
    const second = await scene.deposit();
    const unreachable = queueFor(scene.terminal.token, 'http://127.0.0.1:9');
    unreachable.queue.add(
      'door',
      { shipmentId: first.shipment.id, collected: true },
      minutesAgo(2),
    );
    unreachable.queue.add(
      'door',
      { shipmentId: second.shipment.id, collected: true },
      minutesAgo(1),
    );
    await unreachable.queue.retryNow();
    expect(unreachable.queue.pending()).toBe(2);
    const attempts = unreachable.db.prepare('select attempts from confirms order by id').all();
    expect(attempts).toEqual([{ attempts: 1 }, { attempts: 1 }]);

    // The same rows, read by a kiosk that can reach the service again.
    const back = new ConfirmQueue(
      unreachable.db,
      new TerminalClient(stack.url, scene.terminal.token, silentLog),
      { changed: () => {}, stuck: () => {} },
    );
    await back.retryNow();
    expect(back.pending()).toBe(0);
    const rows =
      await stack.sql`select status from shipments where id in ${stack.sql([first.shipment.id, second.shipment.id])}`;
    expect(rows.map((r) => r.status)).toEqual(['collected', 'collected']);
  });

  it('applies two confirms of one parcel in the order they happened, never side by side', async () => {
    const scene = await stack.scene('1:S');
    const parcel = await scene.collected();
    const started = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    const { queue } = queueFor(scene.terminal.token);
    // The customer cancelled (door released), then the kiosk saw nothing more: applied in
    // this order the return stays open; the other way round it would be recorded.
    queue.add('return', { returnId: started.body.returnId, deposited: false }, minutesAgo(2));
    queue.add('return', { returnId: started.body.returnId, deposited: true }, minutesAgo(1));
    await queue.replay();
    expect(queue.pending()).toBe(0);
    const [ret] = await stack.sql`select status from returns where id = ${started.body.returnId}`;
    expect(ret?.status).toBe('open');
  });

  it('keeps a confirm refused with 401 while the terminal is marked offline', async () => {
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

  it('sets aside, with an alert, a confirm older than 7 days instead of dropping it', async () => {
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
