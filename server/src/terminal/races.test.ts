import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/harness';

// Each pair of calls that change one parcel and its door, raced on one parcel: one wins,
// the other finds nothing (404); never a deadlock turned into a 500.
const TRIALS = 15;

const stack = useTestServer();

async function raceScene() {
  const scene = await stack.scene('1:S');
  const depositOne = async () => {
    await stack.sql`update doors set out_of_service = false where station_id = ${scene.station.id}`;
    const shipment = await stack.shipment(scene.org.id, scene.station.id);
    const body = { courierNo: scene.courier.number, trackingNumber: shipment.tracking_number };
    const deposited = await scene.terminal.api.post('/terminal/v1/deposit', body);
    expect(deposited.status).toBe(200);
    return { shipment, body, door: deposited.body.door as number };
  };
  return { ...scene, depositOne };
}

describe('races on one parcel', () => {
  it('door/confirm against deposit/undo', async () => {
    const { terminal, depositOne } = await raceScene();
    for (let i = 0; i < TRIALS; i++) {
      const { shipment, body } = await depositOne();
      const statuses = (
        await Promise.all([
          terminal.api.post('/terminal/v1/door/confirm', {
            shipmentId: shipment.id,
            collected: true,
          }),
          terminal.api.post('/terminal/v1/deposit/undo', body),
        ])
      ).map((a) => a.status);
      expect(statuses.sort()).toEqual([200, 404]);
    }
  });

  it('door/confirm against door/fault', async () => {
    const { terminal, depositOne } = await raceScene();
    for (let i = 0; i < TRIALS; i++) {
      const { shipment, door } = await depositOne();
      const [confirm, fault] = await Promise.all([
        terminal.api.post('/terminal/v1/door/confirm', {
          shipmentId: shipment.id,
          collected: true,
        }),
        terminal.api.post('/terminal/v1/door/fault', { position: door }),
      ]);
      expect([200, 404]).toContain(confirm.status);
      expect(fault.status).toBe(200);
    }
  });

  it('door/confirm against courier/returns/collected (an expired parcel)', async () => {
    const { terminal, depositOne } = await raceScene();
    for (let i = 0; i < TRIALS; i++) {
      const { shipment, body } = await depositOne();
      await stack.sql`
        update shipments set deposited_at = now() - interval '200 hours' where id = ${shipment.id}`;
      const statuses = (
        await Promise.all([
          terminal.api.post('/terminal/v1/door/confirm', {
            shipmentId: shipment.id,
            collected: true,
          }),
          terminal.api.post('/terminal/v1/courier/returns/collected', body),
        ])
      ).map((a) => a.status);
      expect(statuses.sort()).toEqual([200, 404]);
    }
  });
});
