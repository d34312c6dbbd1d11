import { OfflinePickupsResponseSchema } from '@locker/shared';
import { makeVerifier, matchVerifiers, parseVerifier } from '@locker/shared/verifier';
import { afterAll, describe, expect, it } from 'vitest';
import { connect, type Sql } from '../db/connect';
import { createLogger } from '../logger';
import { client, useTestServer, waitFor } from '../../test/harness';
import { openForVerifier, sealForVerifier } from './verifierSeal';
import {
  makePendingVerifiers,
  startVerifierWorker,
  type MakeVerifier,
  type VerifierWorkerDeps,
} from './verifierWorker';

// This server makes no verifier of its own (VERIFIER_CONCURRENCY=0): each test runs the
// worker itself, so what a deposit leaves behind can be seen before the worker runs.
const stack = useTestServer({ verifierConcurrency: 0 });
const logger = createLogger('silent');
const extraConnections: Sql[] = [];
afterAll(() => Promise.all(extraConnections.map((c) => c.end({ timeout: 1 }))));

interface Row {
  status: string;
  offline_verifier: string | null;
  verifier_code_sealed: Buffer | null;
}
const rowOf = async (id: string) =>
  (
    await stack.sql<Row[]>`
      select status, offline_verifier, verifier_code_sealed from shipments where id = ${id}`
  )[0]!;

/** A worker's dependencies, on `sql` (the server's pool unless given), counting scrypts. */
function worker(sql: Sql = stack.sql, make: MakeVerifier = makeVerifier) {
  const codes: string[] = [];
  const deps: VerifierWorkerDeps = {
    sql,
    pickupCodeSecret: stack.server.config.pickupCodeSecret,
    logger,
    make: (code, salt) => {
      codes.push(code);
      return make(code, salt);
    },
  };
  return { deps, codes };
}

/** Runs the worker until nothing is pending. */
async function drain(deps: VerifierWorkerDeps, batch = 2) {
  let made = 0;
  for (;;) {
    const round = await makePendingVerifiers(deps, batch);
    made += round.made;
    if (round.claimed === 0) return made;
  }
}

describe('the offline verifier, made off the request path', () => {
  it('a deposit computes no scrypt: it keeps the code sealed for the worker, bound to its parcel', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { shipment, code } = await scene.deposit();
    const row = await rowOf(shipment.id);
    expect(row.status).toBe('ready_for_pickup');
    expect(row.offline_verifier).toBeNull();
    expect(row.verifier_code_sealed).not.toBeNull();
    const sealed = row.verifier_code_sealed!;
    expect(sealed.includes(Buffer.from(code))).toBe(false);
    const secret = stack.server.config.pickupCodeSecret;
    expect(openForVerifier(secret, shipment.id, sealed)).toBe(code);
    // Moved to another parcel's row, or opened with another secret, it does not open.
    const other = await stack.shipment(scene.org.id, scene.station.id);
    expect(openForVerifier(secret, other.id, sealed)).toBeNull();
    expect(openForVerifier(`${secret}x`, shipment.id, sealed)).toBeNull();
    // Two seals of one code differ (a random IV each).
    expect(sealForVerifier(secret, shipment.id, code).equals(sealed)).toBe(false);
    // Until the worker runs the parcel is collectable online only: not in the kiosk's set.
    const set = await scene.terminal.api.get('/terminal/v1/offline/pickups');
    expect(set.body.pickups).toEqual([]);
    const picked = await scene.terminal.api.post('/terminal/v1/pickup', { code });
    expect(picked.body.door).toBe(1);
  });

  it('the worker makes the verifier, which checks the code, and erases the ciphertext', async () => {
    const scene = await stack.scene('1:S,2:S');
    const first = await scene.deposit();
    const second = await scene.deposit();
    const { deps, codes } = worker();
    expect(await drain(deps)).toBeGreaterThanOrEqual(2);
    expect(codes).toContain(first.code);
    expect(codes).toContain(second.code);
    for (const { shipment } of [first, second]) {
      const row = await rowOf(shipment.id);
      expect(row.verifier_code_sealed).toBeNull();
      expect(row.offline_verifier).not.toBeNull();
    }
    const set = OfflinePickupsResponseSchema.parse(
      (await scene.terminal.api.get('/terminal/v1/offline/pickups')).body,
    );
    expect(set.pickups.map((p) => p.shipmentId)).toEqual([first.shipment.id, second.shipment.id]);
    const verifiers = set.pickups.map((p) => parseVerifier(p.verifier)!);
    expect(await matchVerifiers(first.code, verifiers)).toEqual([0]);
    expect(await matchVerifiers(second.code, verifiers)).toEqual([1]);
    // Nothing left: a second run computes nothing.
    expect(await makePendingVerifiers(deps, 4)).toEqual({ claimed: 0, made: 0 });
  });

  it("changes the set's ETag when a verifier appears, not the cabinet's; an unchanged poll stays 304", async () => {
    const scene = await stack.scene('1:S,2:S');
    const { shipment } = await scene.deposit();
    const cabinet = await scene.terminal.api.get('/terminal/v1/cabinet');
    const before = await scene.terminal.api.get('/terminal/v1/offline/pickups');
    const etag = before.headers.get('etag')!;
    expect(before.body.pickups).toEqual([]);
    const unchanged = await scene.terminal.api.get('/terminal/v1/offline/pickups', {
      'if-none-match': etag,
    });
    expect(unchanged.status).toBe(304);

    await drain(worker().deps);
    // The version arrives by notification (this test's worker is not the server's).
    const changed = await waitFor(async () => {
      const answer = await scene.terminal.api.get('/terminal/v1/offline/pickups', {
        'if-none-match': etag,
      });
      return answer.status === 200 ? answer : undefined;
    });
    expect(changed.body.pickups.map((p: { shipmentId: string }) => p.shipmentId)).toEqual([
      shipment.id,
    ]);
    const newTag = changed.headers.get('etag')!;
    expect(newTag).not.toBe(etag);
    expect(changed.body.version).not.toBe(before.body.version);
    const again = await scene.terminal.api.get('/terminal/v1/offline/pickups', {
      'if-none-match': newTag,
    });
    expect(again.status).toBe(304);
    // The grid did not change: the kiosk's /cabinet poll stays a 304.
    const grid = await scene.terminal.api.get('/terminal/v1/cabinet', {
      'if-none-match': cabinet.headers.get('etag')!,
    });
    expect(grid.status).toBe(304);
    // Another station's verifier leaves this station's set as it is.
    const elsewhere = await stack.scene('1:S');
    await elsewhere.deposit();
    await drain(worker().deps);
    await waitFor(async () => {
      const theirs = await elsewhere.terminal.api.get('/terminal/v1/offline/pickups');
      return theirs.body.pickups.length === 1 ? true : undefined;
    });
    const mine = await scene.terminal.api.get('/terminal/v1/offline/pickups', {
      'if-none-match': newTag,
    });
    expect(mine.status).toBe(304);
  });

  it('a parcel collected (or undone) before the worker reaches it gets no verifier, and its ciphertext is gone', async () => {
    const scene = await stack.scene('1:S,2:S');
    const collected = await scene.deposit();
    const picked = await scene.terminal.api.post('/terminal/v1/pickup', {
      code: collected.code,
    });
    await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: picked.body.shipmentId,
      collected: true,
    });
    const undone = await scene.deposit();
    expect(
      (
        await scene.terminal.api.post('/terminal/v1/deposit/undo', {
          courierNo: scene.courier.number,
          trackingNumber: undone.shipment.tracking_number,
        })
      ).status,
    ).toBe(200);
    for (const { shipment } of [collected, undone]) {
      const row = await rowOf(shipment.id);
      expect(row.verifier_code_sealed).toBeNull();
      expect(row.offline_verifier).toBeNull();
    }
    const { deps, codes } = worker();
    await drain(deps);
    expect(codes).not.toContain(collected.code);
    expect(codes).not.toContain(undone.code);
    expect((await rowOf(collected.shipment.id)).offline_verifier).toBeNull();
    expect((await rowOf(undone.shipment.id)).offline_verifier).toBeNull();
  });

  it('two workers on two connections never make the same parcel twice', async () => {
    const scene = await stack.scene('1:S,2:S,3:S,4:S,5:S,6:S,7:S,8:S,9:S,10:S');
    const deposited = [];
    for (let i = 0; i < 10; i++) deposited.push(await scene.deposit());
    // Each worker's first scrypt waits until the other has begun one: they overlap.
    const begun = new Set<string>();
    const overlapping =
      (name: string): MakeVerifier =>
      async (code, salt) => {
        begun.add(name);
        await waitFor(() => (begun.size === 2 ? true : undefined), 5000);
        return makeVerifier(code, salt);
      };
    const connections = [connect(stack.databaseUrl, { max: 2 }), connect(stack.databaseUrl)];
    extraConnections.push(...connections);
    const a = worker(connections[0], overlapping('a'));
    const b = worker(connections[1], overlapping('b'));
    await Promise.all([drain(a.deps, 2), drain(b.deps, 3)]);
    const made = [...a.codes, ...b.codes];
    expect(a.codes.length).toBeGreaterThan(0);
    expect(b.codes.length).toBeGreaterThan(0);
    expect(new Set(made).size).toBe(made.length);
    for (const { code, shipment } of deposited) {
      expect(made).toContain(code);
      expect((await rowOf(shipment.id)).offline_verifier).not.toBeNull();
    }
  });

  it('a worker that dies mid-batch loses nothing: a new one picks up what was pending', async () => {
    const scene = await stack.scene('1:S,2:S,3:S');
    const parcels = [await scene.deposit(), await scene.deposit(), await scene.deposit()];
    const dying = worker(stack.sql, () => Promise.reject(new Error('killed mid-scrypt')));
    await expect(makePendingVerifiers(dying.deps, 2)).rejects.toThrow('killed mid-scrypt');
    for (const { shipment } of parcels)
      expect((await rowOf(shipment.id)).verifier_code_sealed).not.toBeNull();

    // A new instance's worker (its own connection), woken by its first run.
    const fresh = connect(stack.databaseUrl, { max: 2 });
    extraConnections.push(fresh);
    const { deps, codes } = worker(fresh);
    const poller = startVerifierWorker(deps, 1, 60_000)!;
    try {
      await waitFor(async () => {
        const rows = await Promise.all(parcels.map((p) => rowOf(p.shipment.id)));
        return rows.every((r) => r.offline_verifier !== null && r.verifier_code_sealed === null)
          ? true
          : undefined;
      }, 20_000);
    } finally {
      await poller.stop();
    }
    for (const { code } of parcels) expect(codes).toContain(code);
  });

  it('the sandbox’s simulated deposit and an offline deposit take the same path', async () => {
    const scene = await stack.scene('1:S,2:S');
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    const offline = await scene.terminal.api.post('/terminal/v1/offline/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
      door: 2,
    });
    expect(offline.status).toBe(200);
    const code = await stack.pickupCodeSentTo(parcel.recipient_phone);
    const row = await rowOf(parcel.id);
    expect(row.offline_verifier).toBeNull();
    expect(
      openForVerifier(stack.server.config.pickupCodeSecret, parcel.id, row.verifier_code_sealed!),
    ).toBe(code);

    const { createSandboxOrganization } = await import('../admin/sandbox');
    const org = await createSandboxOrganization(stack.sql, `Sandbox ${Math.random()}`);
    const api = client(stack.url, org.apiKey);
    const booked = await api.post('/api/v1/shipments', {
      destination_station_id: org.stations[0]!.id,
      parcel_size: 'S',
      recipient_name: 'Test Recipient',
      recipient_phone: '+38344123456',
      recipient_language: 'en',
    });
    expect(booked.status).toBe(201);
    const step = await api.post(`/api/v1/sandbox/shipments/${booked.body.id}/advance`, {
      action: 'deposit',
    });
    expect(step.status).toBe(200);
    const simulated = await rowOf(booked.body.id);
    expect(simulated.status).toBe('ready_for_pickup');
    expect(simulated.offline_verifier).toBeNull();
    expect(simulated.verifier_code_sealed).not.toBeNull();

    const { deps, codes } = worker();
    await drain(deps);
    expect(codes).toContain(code);
    expect((await rowOf(booked.body.id)).offline_verifier).not.toBeNull();
  });

  it('a parcel that joined a door before its lead had a verifier gets the lead’s, once made', async () => {
    const scene = await stack.scene('1:M,2:M');
    const person = { name: 'Drita Gashi', phone: `+3834${String(Date.now()).slice(-7)}` };
    const lead = await scene.deposit({ ...person, size: 'S' });
    const second = await stack.shipment(scene.org.id, scene.station.id, { ...person, size: 'S' });
    const joined = await scene.terminal.api.post('/terminal/v1/deposit/shared', {
      courierNo: scene.courier.number,
      trackingNumber: second.tracking_number,
      door: lead.door,
    });
    expect(joined.status).toBe(200);
    // Neither has a verifier yet; the joined parcel has no sealed code of its own.
    expect((await rowOf(second.id)).offline_verifier).toBeNull();
    expect((await rowOf(second.id)).verifier_code_sealed).toBeNull();
    const { deps, codes } = worker();
    expect(await drain(deps)).toBe(1);
    // One scrypt, for the lead; the parcel in its door shares its code and so its verifier.
    expect(codes).toEqual([lead.code]);
    const [a, b] = [await rowOf(lead.shipment.id), await rowOf(second.id)];
    expect(b.offline_verifier).not.toBeNull();
    expect(b.offline_verifier).toBe(a.offline_verifier);
    const set = OfflinePickupsResponseSchema.parse(
      (await scene.terminal.api.get('/terminal/v1/offline/pickups')).body,
    );
    expect(set.pickups.map((p) => p.shipmentId).sort()).toEqual(
      [lead.shipment.id, second.id].sort(),
    );
    const verifiers = set.pickups.map((p) => parseVerifier(p.verifier)!);
    expect(await matchVerifiers(lead.code, verifiers)).toHaveLength(2);
  });
});
