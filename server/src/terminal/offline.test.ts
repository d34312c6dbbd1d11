import { OfflinePickupsResponseSchema } from '@locker/shared';
import { matchVerifiers, parseVerifier } from '@locker/shared/verifier';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/harness';

const stack = useTestServer();

describe('GET /terminal/v1/offline/pickups', () => {
  it("lists the station's parcels awaiting pickup with a verifier of the code, never the code", async () => {
    const scene = await stack.scene('1:S,2:M,3:L', { maxStorageHours: 100 });
    const first = await scene.deposit();
    const second = await scene.deposit({ size: 'M' });
    // Another station's parcel is not in this station's set.
    const other = await stack.scene('1:S');
    const foreign = await other.deposit();

    const answer = await scene.terminal.api.get('/terminal/v1/offline/pickups');
    expect(answer.status).toBe(200);
    const set = OfflinePickupsResponseSchema.parse(answer.body);
    expect(set.pickups.map((p) => [p.shipmentId, p.door])).toEqual([
      [first.shipment.id, first.door],
      [second.shipment.id, second.door],
    ]);
    expect(answer.text).not.toContain(first.code);
    expect(answer.text).not.toContain(second.code);
    expect(answer.text).not.toContain(first.shipment.tracking_number);
    const [row] = await stack.sql<{ deposited_at: Date }[]>`
      select deposited_at from shipments where id = ${first.shipment.id}`;
    expect(Date.parse(set.pickups[0]!.collectUntil)).toBe(
      row!.deposited_at.getTime() + 100 * 3600_000,
    );

    const verifiers = set.pickups.map((p) => parseVerifier(p.verifier)!);
    expect(verifiers.every(Boolean)).toBe(true);
    // The station's key salts every verifier: one derivation checks a code against all.
    expect(new Set(verifiers.map((v) => v.group)).size).toBe(1);
    expect(await matchVerifiers(second.code, verifiers)).toEqual([1]);
    expect(await matchVerifiers(first.code, verifiers)).toEqual([0]);
    expect(await matchVerifiers(foreign.code, verifiers)).toEqual([]);
    // The same code at another station gives another verifier: a set is worthless elsewhere.
    const foreignSet = OfflinePickupsResponseSchema.parse(
      (await other.terminal.api.get('/terminal/v1/offline/pickups')).body,
    );
    expect(parseVerifier(foreignSet.pickups[0]!.verifier)!.group).not.toBe(verifiers[0]!.group);
  });

  it('answers an unchanged set 304 by its ETag, and a changed one anew', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { code } = await scene.deposit();
    const first = await scene.terminal.api.get('/terminal/v1/offline/pickups');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"pickups-/);
    const again = await scene.terminal.api.get('/terminal/v1/offline/pickups', {
      'if-none-match': etag,
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');

    // Collected: the parcel leaves the set, and its verifier dies with its code.
    const picked = await scene.terminal.api.post('/terminal/v1/pickup', { code });
    await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: picked.body.shipmentId,
      collected: true,
    });
    const changed = await scene.terminal.api.get('/terminal/v1/offline/pickups', {
      'if-none-match': etag,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.pickups).toEqual([]);
    const [row] = await stack.sql`
      select offline_verifier from shipments where id = ${picked.body.shipmentId}`;
    expect(row?.offline_verifier).toBeNull();
  });

  it('alerts operations when a collection is reported for a parcel the service handled otherwise', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { shipment, door } = await scene.deposit();
    // The door reported jammed just after the deposit: the service undoes the deposit.
    await scene.terminal.api.post('/terminal/v1/door/fault', { position: door });
    const at = new Date(Date.now() - 60_000).toISOString();
    const confirm = await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: shipment.id,
      collected: true,
      occurred_at: at,
    });
    expect(confirm.status).toBe(404);
    const alerts = await stack.sql<{ message: string }[]>`
      select message from alerts
       where kind = 'offline_pickup_conflict' and station_id = ${scene.station.id}`;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.message).toContain(shipment.tracking_number);
    expect(alerts[0]!.message).toContain(`collected at ${at.replace(/\.\d+Z$/, '')}`);
    expect(alerts[0]!.message).toContain('the service has it booked');

    // A plain repeat of a confirm that got through is no conflict.
    const again = await scene.deposit();
    const picked = await scene.terminal.api.post('/terminal/v1/pickup', { code: again.code });
    for (let i = 0; i < 2; i++)
      await scene.terminal.api.post('/terminal/v1/door/confirm', {
        shipmentId: picked.body.shipmentId,
        collected: true,
      });
    const [{ n }] = await stack.sql<{ n: number }[]>`
      select count(*)::int as n from alerts where kind = 'offline_pickup_conflict'`;
    expect(n).toBe(1);
  });
});
