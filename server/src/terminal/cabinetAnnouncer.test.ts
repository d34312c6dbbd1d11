import { describe, expect, it } from 'vitest';
import { setDoorService } from '../admin/commands';
import { useTestServer, waitFor } from '../../test/harness';

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
});
