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

/**
 * What the database holds of the parcel once the race is over: its status, how many doors
 * it occupies, and the merchant's events in order. The answers alone could say 200 and 404
 * while both writes landed; this is what must be whole.
 */
async function endState(shipmentId: string) {
  const [row] = await stack.sql<{ status: string; doors: number }[]>`
    select sh.status,
           (select count(*)::int from door_occupancy o where o.shipment_id = sh.id) as doors
      from shipments sh where sh.id = ${shipmentId}`;
  return { ...row!, events: await stack.webhookTypesOf(shipmentId) };
}

const COLLECTED = {
  status: 'collected',
  doors: 0,
  events: ['shipment.ready_for_pickup', 'shipment.collected'],
};

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
      expect([...statuses].sort()).toEqual([200, 404]);
      // The winner's outcome alone: collected, or back to awaiting deposit; no door either way.
      expect(await endState(shipment.id)).toEqual(
        statuses[0] === 200
          ? COLLECTED
          : {
              status: 'booked',
              doors: 0,
              events: ['shipment.ready_for_pickup', 'shipment.deposit_cancelled'],
            },
      );
    }
  });

  it('door/confirm against door/fault', async () => {
    const { terminal, depositOne, ...scene } = await raceScene();
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
      // Collected before the fault, or undone by it (the confirm then finds nothing).
      expect(await endState(shipment.id)).toEqual(
        confirm.status === 200
          ? COLLECTED
          : {
              status: 'booked',
              doors: 0,
              events: ['shipment.ready_for_pickup', 'shipment.deposit_cancelled'],
            },
      );
      const [faulted] = await stack.sql<{ out_of_service: boolean }[]>`
        select out_of_service from doors
         where station_id = ${scene.station.id} and position = ${door}`;
      expect(faulted?.out_of_service).toBe(true);
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
      expect([...statuses].sort()).toEqual([200, 404]);
      // Collected by its recipient, or taken back by the courier (its expiry told first).
      expect(await endState(shipment.id)).toEqual(
        statuses[0] === 200
          ? COLLECTED
          : {
              status: 'return_collected',
              doors: 0,
              events: [
                'shipment.ready_for_pickup',
                'shipment.expired',
                'shipment.return_collected',
              ],
            },
      );
    }
  });
});
