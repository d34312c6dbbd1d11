import { describe, expect, it } from 'vitest';
import { setDoorService } from '../admin/commands';
import { useTestServer, waitFor } from '../../test/harness';
import type { Sql } from '../db/connect';
import { createLogger } from '../logger';
import { CabinetAnnouncer } from './cabinetAnnouncer';

// Migration 027: the terminal's write paths announce their cabinet version after the
// commit (CabinetAnnouncer); their commits take no notify lock. Everything else is still
// announced by its commit.

const stack = useTestServer({ pickupCodeSecret: 'test-secret' });

/** Every `locker_cabinet` notification of the station, as `version` strings, until stopped. */
async function listenTo(stationId: string) {
  const heard: string[] = [];
  const subscription = await stack.sql.listen('locker_cabinet', (payload) => {
    const [station, version] = payload.split(' ');
    if (station === stationId) heard.push(version!);
  });
  return { heard, stop: () => subscription.unlisten() };
}

const versionOf = async (stationId: string) =>
  (
    await stack.sql<{ v: string }[]>`
      select cabinet_version::text as v from stations where id = ${stationId}`
  )[0]!.v;

/** Waits for `version`, then a little longer: a second notification would have come by then. */
async function heardOnce(heard: string[], version: string) {
  await waitFor(() => heard.includes(version) || undefined);
  await new Promise((resolve) => setTimeout(resolve, 300));
  return heard.filter((v) => v === version).length;
}

describe('cabinet versions announced after the commit', () => {
  it('announces a deposit, a collection and a return once each, after their commits', async () => {
    const scene = await stack.scene('1:S,2:S,3:S');
    const listener = await listenTo(scene.station.id);
    try {
      const { shipment, code } = await scene.deposit();
      const deposited = await versionOf(scene.station.id);
      // One notification: the announcer's. The commit's own would be a second.
      expect(await heardOnce(listener.heard, deposited)).toBe(1);

      const picked = await scene.terminal.api.post('/terminal/v1/pickup', { code });
      expect(picked.status).toBe(200);
      const confirmed = await scene.terminal.api.post('/terminal/v1/door/confirm', {
        shipmentId: shipment.id,
        collected: true,
      });
      expect(confirmed.status).toBe(200);
      expect(await heardOnce(listener.heard, await versionOf(scene.station.id))).toBe(1);

      const started = await scene.terminal.api.post('/terminal/v1/return', {
        trackingNumber: shipment.tracking_number,
      });
      expect(started.status).toBe(200);
      expect(await heardOnce(listener.heard, await versionOf(scene.station.id))).toBe(1);
      // Versions only grow, each heard in order of its commit.
      expect(listener.heard.map(BigInt)).toEqual(
        [...listener.heard.map(BigInt)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
      );
    } finally {
      await listener.stop();
    }
  });

  it("still announces an operator's door change by its commit", async () => {
    const scene = await stack.scene('1:S,2:S');
    const listener = await listenTo(scene.station.id);
    try {
      await setDoorService(stack.sql, scene.station.code, 2, 'out');
      expect(await heardOnce(listener.heard, await versionOf(scene.station.id))).toBe(1);
    } finally {
      await listener.stop();
    }
  });

  it('gathers what comes while one is sent, the newest of each station, and stops when closed', async () => {
    const sent: string[][] = [];
    let fail = false;
    // A stand-in for the pool: records each statement's payloads, or fails.
    const sql = ((_: TemplateStringsArray, payloads: string[]) =>
      fail
        ? Promise.reject(new Error('down'))
        : (sent.push(payloads), Promise.resolve([]))) as unknown as Sql;
    const announcer = new CabinetAnnouncer(sql, createLogger('silent'));
    announcer.announce('a', 1n);
    announcer.announce('a', 3n);
    announcer.announce('b', 2n);
    announcer.announce('a', 2n);
    await waitFor(() => sent.length === 2 || undefined);
    expect(sent).toEqual([['a 1'], ['a 3', 'b 2']]);
    // Down: closing does not wait for a database that does not come back.
    fail = true;
    announcer.announce('c', 1n);
    const started = Date.now();
    await announcer.close();
    expect(Date.now() - started).toBeLessThan(2_500);
    announcer.announce('d', 1n);
    expect(sent).toHaveLength(2);
  });
});
