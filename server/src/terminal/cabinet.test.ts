import { CabinetResponseSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { setDoorService } from '../admin/commands';
import { useTestServer, waitFor } from '../../test/harness';

const stack = useTestServer();

describe('GET /cabinet', () => {
  it('lists every door with a status derived from its contents and no personal data beyond a first name', async () => {
    const scene = await stack.scene('1:S:A1,2:M:A2,3:L,4:XL,5:-,6:S');
    await setDoorService(stack.sql, scene.station.code, 6, 'out');
    const { shipment } = await scene.deposit({ size: 'M', name: 'Drita Gashi Berisha' });

    const answer = await scene.terminal.api.get('/terminal/v1/cabinet');
    expect(answer.status).toBe(200);
    const cabinet = CabinetResponseSchema.parse(answer.body);
    expect(cabinet.station).toEqual({ code: scene.station.code, name: 'Test Station' });
    expect(cabinet.doors.map((d) => [d.position, d.status])).toEqual([
      [1, 'available'],
      [2, 'occupied'],
      [3, 'available'],
      [4, 'available'],
      [5, 'out_of_service'],
      [6, 'out_of_service'],
    ]);
    expect(cabinet.doors[0]).toEqual({
      position: 1,
      code: 'A1',
      size: 'S',
      status: 'available',
      parcel: null,
    });
    expect(cabinet.doors[1]?.parcel).toEqual({
      trackingNumber: shipment.tracking_number,
      recipientFirstName: 'Drita',
      kind: 'delivery',
    });
    expect(answer.text).not.toMatch(/Berisha|Gashi|\+383/);
  });

  it('shows a door held for a return as occupied with no parcel, and a deposited return as kind return', async () => {
    const scene = await stack.scene('1:S,2:S');
    const shipment = await scene.collected();
    const started = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: shipment.tracking_number,
    });
    expect(started.status).toBe(200);

    const held = CabinetResponseSchema.parse(
      (await scene.terminal.api.get('/terminal/v1/cabinet')).body,
    );
    expect(held.doors.find((d) => d.position === started.body.door)).toMatchObject({
      status: 'occupied',
      parcel: null,
    });

    await scene.terminal.api.post('/terminal/v1/return/confirm', {
      returnId: started.body.returnId,
      deposited: true,
    });
    const returned = CabinetResponseSchema.parse(
      (await scene.terminal.api.get('/terminal/v1/cabinet')).body,
    );
    expect(returned.doors.find((d) => d.position === started.body.door)?.parcel).toEqual({
      trackingNumber: shipment.tracking_number,
      recipientFirstName: 'Drita',
      kind: 'return',
    });
  });

  it('answers If-None-Match with 304 until the door grid changes', async () => {
    const scene = await stack.scene('1:S,2:M');
    const first = await scene.terminal.api.get('/terminal/v1/cabinet');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);

    const unchanged = await scene.terminal.api.get('/terminal/v1/cabinet', {
      'If-None-Match': etag!,
    });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    expect(unchanged.headers.get('etag')).toBe(etag);

    await scene.deposit();
    const changed = await scene.terminal.api.get('/terminal/v1/cabinet', {
      'If-None-Match': etag!,
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);

    // An operator's change reaches every instance by notification, within milliseconds.
    await setDoorService(stack.sql, scene.station.code, 2, 'out');
    const afterService = await waitFor(async () => {
      const answer = await scene.terminal.api.get('/terminal/v1/cabinet', {
        'If-None-Match': changed.headers.get('etag')!,
      });
      return answer.status === 200 ? answer : undefined;
    }, 2000);
    expect(afterService.body.doors[1].status).toBe('out_of_service');
  });

  it('shows a terminal only its own station', async () => {
    const a = await stack.scene('1:S');
    const b = await stack.scene('1:S,2:S,3:S');
    await a.deposit();
    const seenByB = CabinetResponseSchema.parse(
      (await b.terminal.api.get('/terminal/v1/cabinet')).body,
    );
    expect(seenByB.station.code).toBe(b.station.code);
    expect(seenByB.doors.every((d) => d.status === 'available')).toBe(true);
  });

  it('answers 500 station_unresolved when the terminal station no longer exists', async () => {
    const station = await stack.station('1:S');
    const t = await stack.terminal(station.code);
    await stack.sql`delete from stations where id = ${station.id}`;
    const answer = await t.api.get('/terminal/v1/cabinet');
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ code: 'station_unresolved', status: 500 });
    expect(answer.text).not.toMatch(/select|stack|Error:/i);
  });
});
