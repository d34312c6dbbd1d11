import {
  AuditListSchema,
  OverdueListSchema,
  ParcelSearchSchema,
  StationDetailSchema,
  STATION_SORTS,
  StationListSchema,
  TerminalListSchema,
} from '@locker/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, type TestStack } from '../../test/harness';
import { signedInOperator, testClock } from '../../test/opsClient';

let stack: TestStack;
const clock = testClock();
type Op = Awaited<ReturnType<typeof signedInOperator>>;
let admin: Op;
let operations: Op;
let support: Op;

beforeAll(async () => {
  stack = await startTestServer({ clock: clock.now });
  admin = await signedInOperator(stack, clock, 'admin');
  operations = await signedInOperator(stack, clock, 'operations');
  support = await signedInOperator(stack, clock, 'support');
});
afterAll(() => stack.close());

async function auditOf(actor: string, action?: string) {
  return stack.sql<
    {
      action: string;
      outcome: string;
      target: string | null;
      reason: string | null;
      role: string;
    }[]
  >`
    select action, outcome, target, reason, role from audit_log
     where actor = ${actor} and ${action ? stack.sql`action = ${action}` : stack.sql`true`}
     order by id`;
}

describe('roles, refused on the server', () => {
  it('refuses support a door service change with 403, changes nothing, and audits the refusal', async () => {
    const { station } = await stack.scene('1:S,2:M');
    const answer = await support.client.post(`/ops/v1/stations/${station.code}/doors/1/service`, {
      in_service: false,
      reason: 'trying my luck',
    });
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('forbidden');
    const [door] =
      await stack.sql`select out_of_service from doors where station_id = ${station.id} and position = 1`;
    expect(door!.out_of_service).toBe(false);
    expect(await auditOf(support.email, 'door.service')).toEqual([
      expect.objectContaining({
        outcome: 'refused',
        role: 'support',
        target: `POST /ops/v1/stations/${station.code}/doors/1/service`,
      }),
    ]);
  });

  it('refuses operations the operators and the keys, support every action', async () => {
    const { org } = await stack.scene('1:S');
    const refusals: [Op, string, string, unknown?][] = [
      [operations, 'POST', '/ops/v1/operators', { email: 'x@y.example', role: 'support' }],
      [operations, 'GET', '/ops/v1/operators'],
      [operations, 'POST', `/ops/v1/organizations/${org.id}/keys/rotate`],
      [operations, 'POST', '/ops/v1/organizations', { name: 'Nope' }],
      [support, 'POST', '/ops/v1/couriers', { number: 'S-1', name: 'x' }],
      [support, 'POST', '/ops/v1/terminals', { station: 'x' }],
      [support, 'GET', '/ops/v1/audit'],
      [support, 'GET', '/ops/v1/couriers'],
    ];
    for (const [op, method, path, body] of refusals) {
      const answer = await op.client.raw(
        method,
        path,
        body ?? (method === 'POST' ? {} : undefined),
      );
      expect(answer.status, `${method} ${path}`).toBe(403);
    }
    const keys =
      await stack.sql`select count(*)::int as n from api_keys where organization_id = ${org.id}`;
    expect(keys[0]!.n).toBe(1);
    expect((await auditOf(operations.email)).filter((r) => r.outcome === 'refused')).toHaveLength(
      4,
    );
  });

  it('confines a technician to the doors and terminals of their stations', async () => {
    const mine = await stack.scene('1:S,2:M');
    const other = await stack.scene('1:S,2:M');
    const tech = await signedInOperator(stack, clock, 'technician', [mine.station.code]);
    const list = await tech.client.get('/ops/v1/stations?limit=200');
    expect(list.status).toBe(200);
    expect(list.body.items.map((s: { code: string }) => s.code)).toEqual([mine.station.code]);
    expect((await tech.client.get(`/ops/v1/stations/${other.station.code}`)).status).toBe(403);
    const outside = await tech.client.post(
      `/ops/v1/stations/${other.station.code}/doors/1/service`,
      {
        in_service: false,
        reason: 'not mine',
      },
    );
    expect(outside.status).toBe(403);
    const inside = await tech.client.post(`/ops/v1/stations/${mine.station.code}/doors/1/service`, {
      in_service: false,
      reason: 'lock replaced',
    });
    expect(inside.status).toBe(200);
    expect((await tech.client.post(`/ops/v1/terminals/${other.terminal.id}/disable`)).status).toBe(
      403,
    );
    expect((await tech.client.post(`/ops/v1/terminals/${mine.terminal.id}/disable`)).status).toBe(
      200,
    );
    const terminals = await tech.client.get('/ops/v1/terminals');
    expect(terminals.body.items.map((t: { id: string }) => t.id)).toEqual([mine.terminal.id]);
    expect((await tech.client.get('/ops/v1/parcels?q=1234')).status).toBe(403);
    expect(
      (await auditOf(tech.email)).filter((r) => r.outcome === 'refused').map((r) => r.action),
    ).toEqual(['station.read', 'door.service_out', 'terminal.disable', 'parcel.search']);
  });
});

describe('fleet and stations', () => {
  it('counts doors by state and size, overdue parcels, terminals and open alerts per station', async () => {
    const scene = await stack.scene('1:S,2:S,3:M,4:L,5:-', { freeStorageHours: 24 });
    await scene.deposit({ size: 'S' });
    const late = await scene.deposit({ size: 'M' });
    await stack.sql`update shipments set deposited_at = now() - interval '30 hours' where id = ${late.shipment.id}`;
    await operations.client.post(`/ops/v1/stations/${scene.station.code}/doors/4/service`, {
      in_service: false,
      reason: 'glass cracked',
    });
    const offline = await stack.terminal(scene.station.code);
    await stack.sql`update terminals set status = 'offline' where id = ${offline.id}`;
    await stack.sql`insert into alerts (kind, terminal_id, station_id, message)
                    values ('terminal_offline', ${offline.id}, ${scene.station.id}, 'silent')`;
    const answer = await operations.client.get(`/ops/v1/stations?q=${scene.station.code}`);
    expect(answer.status).toBe(200);
    const list = StationListSchema.parse(answer.body);
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toEqual({
      id: scene.station.id,
      code: scene.station.code,
      name: 'Test Station',
      doors: {
        free: { S: 1, M: 0, L: 0, XL: 0, unknown: 0 },
        occupied: { S: 1, M: 1, L: 0, XL: 0, unknown: 0 },
        out_of_service: { S: 0, M: 0, L: 1, XL: 0, unknown: 1 },
      },
      parcels_overdue: 1,
      parcels_expired: 0,
      terminals: { online: 1, offline: 1, disabled: 0 },
      open_alerts: 1,
    });
    const offlineOnly = await operations.client.get('/ops/v1/stations?offline=true&limit=200');
    expect(offlineOnly.body.items.map((s: { code: string }) => s.code)).toContain(
      scene.station.code,
    );
    expect(
      offlineOnly.body.items.every(
        (s: { terminals: { offline: number } }) => s.terminals.offline > 0,
      ),
    ).toBe(true);
    const first = await operations.client.get('/ops/v1/stations?sort=offline_first&limit=1');
    expect(first.body.items[0].terminals.offline).toBeGreaterThan(0);
    const overview = await operations.client.get('/ops/v1/overview');
    expect(overview.body).toMatchObject({
      alerts_open: { critical: expect.any(Number) },
      stations_offline: expect.any(Number),
      parcels_overdue: expect.any(Number),
    });
    expect(overview.body.parcels_overdue).toBeGreaterThanOrEqual(1);
    expect(overview.body.alerts_open.critical).toBeGreaterThanOrEqual(1);
  });

  it('pages the fleet by cursor without skipping or repeating a station, in each sort', async () => {
    for (let i = 0; i < 7; i++) await stack.station('1:S');
    for (const sort of STATION_SORTS) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: {
          status: number;
          body: { items: { id: string }[]; next_cursor: string | null };
        } = await operations.client.get(
          `/ops/v1/stations?sort=${sort}&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(page.status).toBe(200);
        seen.push(...page.body.items.map((s) => s.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      const [all] =
        await stack.sql`select count(*)::int as n from stations where sandbox_organization_id is null`;
      expect(seen, sort).toHaveLength(all!.n);
      expect(new Set(seen).size).toBe(seen.length);
    }
    // Fullest first: the share of doors holding something, descending; overdue first: the
    // count of deliveries past free storage, descending.
    const share = (s: any) => {
      const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
      const all = sum(s.doors.free) + sum(s.doors.occupied) + sum(s.doors.out_of_service);
      return Math.floor((100 * sum(s.doors.occupied)) / Math.max(1, all));
    };
    const fullest = (await operations.client.get('/ops/v1/stations?sort=fullest_first&limit=200'))
      .body.items;
    expect(fullest.map(share)).toEqual([...fullest.map(share)].sort((a, b) => b - a));
    expect(share(fullest[0])).toBeGreaterThan(0);
    const overdue = (await operations.client.get('/ops/v1/stations?sort=overdue_first&limit=200'))
      .body.items;
    const counts = overdue.map((s: any) => s.parcels_overdue);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(counts[0]).toBeGreaterThan(0);
    const bad = await operations.client.get('/ops/v1/stations?cursor=garbage');
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({ field: 'cursor', code: 'invalid_cursor' });
  });

  it('shows each door with what it holds and since when, why it is out of service, and the terminals', async () => {
    const scene = await stack.scene('1:S,2:M');
    const { shipment, door, code } = await scene.deposit();
    await scene.terminal.api.post('/terminal/v1/heartbeat', { appVersion: '2.4.1' });
    const other = door === 1 ? 2 : 1;
    const out = await operations.client.post(
      `/ops/v1/stations/${scene.station.code}/doors/${other}/service`,
      {
        in_service: false,
        reason: 'hinge bent',
      },
    );
    expect(out.status).toBe(200);
    expect(out.body.door.out_of_service).toEqual({
      reason: 'hinge bent',
      since: expect.any(String),
      by: operations.email,
    });
    const answer = await support.client.get(`/ops/v1/stations/${scene.station.code}`);
    expect(answer.status).toBe(200);
    const detail = StationDetailSchema.parse(answer.body);
    const held = detail.doors.find((d) => d.position === door)!;
    expect(held).toMatchObject({
      state: 'occupied',
      holds: { kind: 'delivery', tracking_number: shipment.tracking_number, overdue_since: null },
      sensor: {
        state: null,
        item_present: null,
        in_session: null,
        open_since: null,
        seen_at: null,
      },
    });
    expect(detail.doors.find((d) => d.position === other)).toMatchObject({
      state: 'out_of_service',
      out_of_service: { reason: 'hinge bent', by: operations.email },
    });
    expect(detail.terminals).toEqual([
      expect.objectContaining({
        id: scene.terminal.id,
        status: 'online',
        app_version: '2.4.1',
        link: { connected: false, since: null },
      }),
    ]);
    expect(answer.text).not.toContain(code);
    // Back in service: the reason goes; the history keeps both changes.
    const back = await operations.client.post(
      `/ops/v1/stations/${scene.station.code}/doors/${other}/service`,
      {
        in_service: true,
        reason: 'hinge replaced',
      },
    );
    expect(back.body.door).toMatchObject({ state: 'free', out_of_service: null });
    const history = await stack.sql`
      select h.out_of_service, h.reason, h.by from door_service_history h join doors d on d.id = h.door_id
       where d.station_id = ${scene.station.id} and d.position = ${other} order by h.id`;
    expect(history).toEqual([
      { out_of_service: true, reason: 'hinge bent', by: operations.email },
      { out_of_service: false, reason: 'hinge replaced', by: operations.email },
    ]);
    expect(await auditOf(operations.email, 'door.service_in')).toEqual([
      expect.objectContaining({
        outcome: 'ok',
        target: `${scene.station.code}/${other}`,
        reason: 'hinge replaced',
      }),
    ]);
    const noReason = await operations.client.post(
      `/ops/v1/stations/${scene.station.code}/doors/${other}/service`,
      {
        in_service: false,
      },
    );
    expect(noReason.status).toBe(422);
    expect(noReason.body.errors).toEqual([
      expect.objectContaining({ field: 'reason', code: 'required' }),
    ]);
  });
});

describe('parcels', () => {
  it('finds a parcel by tracking number, reference, phone digits, door and station, with its history; never its code', async () => {
    const scene = await stack.scene('1:S,2:M');
    const phone = '+38344987654';
    const { shipment, door, code } = await scene.deposit({ phone });
    await stack.sql`update shipments set merchant_order_reference = 'ORDER-77' where id = ${shipment.id}`;
    const searches: [string, string][] = [
      [`q=${shipment.tracking_number}`, 'tracking_number'],
      ['q=ORDER-77', 'merchant_reference'],
      ['q=7654', 'phone'],
      [`station=${scene.station.code}&door=${door}`, 'door'],
      [`q=${scene.station.code}`, 'station'],
    ];
    for (const [query, matched] of searches) {
      const answer = await operations.client.get(`/ops/v1/parcels?${query}`);
      expect(answer.status, query).toBe(200);
      const found = ParcelSearchSchema.parse(answer.body);
      expect(found.matched, query).toBe(matched);
      const item = found.items.find((p) => p.id === shipment.id)!;
      expect(item, query).toMatchObject({
        tracking_number: shipment.tracking_number,
        status: 'ready_for_pickup',
        door,
        recipient_phone: phone,
        station: { code: scene.station.code },
      });
      expect(item.history.map((h) => h.status)).toEqual(['booked', 'ready_for_pickup']);
      expect(answer.text).not.toContain(code);
    }
    const none = await operations.client.get('/ops/v1/parcels?q=NOTHING-HERE');
    expect(none.body).toEqual({ matched: null, items: [], next_cursor: null });
  });

  it("masks recipients' phone numbers to the last 3 digits for support", async () => {
    const scene = await stack.scene('1:S');
    const phone = '+38349111222';
    const { shipment } = await scene.deposit({ phone });
    for (const path of [
      `/ops/v1/parcels?q=${shipment.tracking_number}`,
      '/ops/v1/parcels?q=1222',
    ]) {
      const answer = await support.client.get(path);
      expect(answer.status).toBe(200);
      expect(answer.body.items[0].recipient_phone).toBe('+********222');
      expect(answer.text).not.toContain('49111');
    }
    const overdue = await support.client.get(`/ops/v1/stations/${scene.station.code}/overdue`);
    expect(overdue.status).toBe(200);
    const full = await operations.client.get(`/ops/v1/parcels?q=${shipment.tracking_number}`);
    expect(full.body.items[0].recipient_phone).toBe(phone);
  });

  it('lists overdue parcels per station in ageing groups, expired ones marked', async () => {
    const scene = await stack.scene('1:S,2:S,3:S,4:S,5:S', {
      freeStorageHours: 24,
      maxStorageHours: 120,
    });
    const ages = [10, 30, 60, 100, 300]; // hours since deposit: 24 free, expired after 120
    for (const hours of ages) {
      const { shipment } = await scene.deposit();
      await stack.sql`update shipments set deposited_at = now() - make_interval(hours => ${hours}) where id = ${shipment.id}`;
    }
    const answer = await operations.client.get(`/ops/v1/stations/${scene.station.code}/overdue`);
    const list = OverdueListSchema.parse(answer.body);
    expect(list.groups).toEqual({
      under_1_day: 1,
      '1_to_3_days': 1,
      '3_to_7_days': 1,
      over_7_days: 1,
    });
    expect(list.items.map((p) => [p.age_group, p.expired])).toEqual([
      ['over_7_days', true],
      ['3_to_7_days', false],
      ['1_to_3_days', false],
      ['under_1_day', false],
    ]);
  });
});

describe('couriers, organizations, keys and terminals', () => {
  it('creates, lists and deactivates couriers, audited', async () => {
    const created = await operations.client.post('/ops/v1/couriers', {
      number: 'OPS-900',
      name: 'Valon Berisha',
    });
    expect(created.status).toBe(201);
    expect(
      (await operations.client.post('/ops/v1/couriers', { number: 'OPS-900', name: 'Again' }))
        .status,
    ).toBe(409);
    const off = await operations.client.post('/ops/v1/couriers/OPS-900/deactivate', {
      reason: 'left the company',
    });
    expect(off.body).toMatchObject({ number: 'OPS-900', active: false });
    const list = await operations.client.get('/ops/v1/couriers?q=OPS-9');
    expect(list.body.items).toEqual([
      expect.objectContaining({ number: 'OPS-900', active: false }),
    ]);
    expect(
      (await auditOf(operations.email)).filter((r) => r.action.startsWith('courier.')),
    ).toEqual([
      expect.objectContaining({ action: 'courier.create', outcome: 'ok', target: 'OPS-900' }),
      expect.objectContaining({
        action: 'courier.deactivate',
        outcome: 'ok',
        reason: 'left the company',
      }),
    ]);
  });

  it('issues a key shown once, rotates and revokes keys; the merchant API follows at once', async () => {
    const created = await admin.client.post('/ops/v1/organizations', { name: 'Shop Peja' });
    expect(created.status).toBe(201);
    const orgId = created.body.organization.id as string;
    const firstKey = created.body.api_key as string;
    const merchant = (key: string) => client(stack.url, key).get('/api/v1/shipments');
    expect((await merchant(firstKey)).status).toBe(200);
    const listed = await admin.client.get(`/ops/v1/organizations/${orgId}/keys`);
    expect(listed.body.items).toHaveLength(1);
    expect(listed.text).not.toContain(firstKey);
    const extra = await admin.client.post(`/ops/v1/organizations/${orgId}/keys`);
    expect((await merchant(extra.body.api_key)).status).toBe(200);
    const rotated = await admin.client.post(`/ops/v1/organizations/${orgId}/keys/rotate`);
    expect(rotated.body.revoked).toHaveLength(2);
    expect((await merchant(firstKey)).status).toBe(401);
    expect((await merchant(extra.body.api_key)).status).toBe(401);
    expect((await merchant(rotated.body.api_key)).status).toBe(200);
    const revoked = await admin.client.post(
      `/ops/v1/organizations/${orgId}/keys/${rotated.body.key.id}/revoke`,
      { reason: 'leaked' },
    );
    expect(revoked.body.revoked_at).not.toBeNull();
    expect((await merchant(rotated.body.api_key)).status).toBe(401);
    expect(
      (await auditOf(admin.email))
        .filter((r) => r.action.startsWith('api_key.') || r.action.startsWith('organization.'))
        .map((r) => r.action),
    ).toEqual(['organization.create', 'api_key.issue', 'api_key.rotate', 'api_key.revoke']);
    const [row] =
      await stack.sql`select count(*)::int as n from audit_log where detail::text like ${'%' + firstKey + '%'}`;
    expect(row!.n).toBe(0);
  });

  it('creates a terminal with its token shown once, disables, revokes, and lists by status', async () => {
    const { station } = await stack.scene('1:S');
    const created = await operations.client.post('/ops/v1/terminals', { station: station.code });
    expect(created.status).toBe(201);
    const api = client(stack.url, created.body.token);
    expect((await api.get('/terminal/v1/cabinet')).status).toBe(200);
    const id = created.body.terminal.id as string;
    expect(
      (await operations.client.post(`/ops/v1/terminals/${id}/disable`, { reason: 'stolen' })).body
        .status,
    ).toBe('disabled');
    const disabled = TerminalListSchema.parse(
      (await operations.client.get(`/ops/v1/terminals?status=disabled&station=${station.code}`))
        .body,
    );
    expect(disabled.items.map((t) => t.id)).toEqual([id]);
    const online = await operations.client.get(
      `/ops/v1/terminals?status=online&station=${station.code}`,
    );
    expect(online.body.items.map((t: { id: string }) => t.id)).not.toContain(id);
    expect((await operations.client.post(`/ops/v1/terminals/${id}/revoke`)).body.revoked).toBe(
      true,
    );
    expect((await operations.client.post(`/ops/v1/terminals/${id}/enable`)).status).toBe(409);
    const revoked = await operations.client.get(
      `/ops/v1/terminals?status=revoked&station=${station.code}`,
    );
    expect(revoked.body.items.map((t: { id: string }) => t.id)).toEqual([id]);
    await expect.poll(async () => (await api.get('/terminal/v1/cabinet')).status).toBe(401);
    expect(
      (await auditOf(operations.email))
        .filter((r) => r.action.startsWith('terminal.'))
        .map((r) => [r.action, r.outcome]),
    ).toEqual([
      ['terminal.create', 'ok'],
      ['terminal.disable', 'ok'],
      ['terminal.revoke', 'ok'],
    ]);
  });
});

describe('the audit log', () => {
  it('filters by actor, action and time, pages by cursor and exports CSV, itself audited', async () => {
    const everything = await admin.client.get(
      `/ops/v1/audit?actor=${encodeURIComponent(operations.email)}&limit=2`,
    );
    expect(everything.status).toBe(200);
    const page = AuditListSchema.parse(everything.body);
    expect(page.items).toHaveLength(2);
    expect(page.next_cursor).not.toBeNull();
    const next = await admin.client.get(
      `/ops/v1/audit?actor=${encodeURIComponent(operations.email)}&limit=2&cursor=${page.next_cursor}`,
    );
    expect(Number(next.body.items[0].id)).toBeLessThan(Number(page.items[1]!.id));
    const doors = await admin.client.get('/ops/v1/audit?action=door&limit=500');
    expect(doors.body.items.length).toBeGreaterThan(0);
    expect(doors.body.items.every((e: { action: string }) => e.action.startsWith('door.'))).toBe(
      true,
    );
    const future = await admin.client.get(
      `/ops/v1/audit?from=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`,
    );
    expect(future.body.items).toEqual([]);
    const csv = await admin.client.get(
      `/ops/v1/audit/export?actor=${encodeURIComponent(operations.email)}`,
    );
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe(
      'id,at,actor,role,action,target_type,target,reason,outcome,correlation_id,address,detail',
    );
    const [count] =
      await stack.sql`select count(*)::int as n from audit_log where actor = ${operations.email}`;
    expect(lines).toHaveLength(count!.n + 1);
    expect(await auditOf(admin.email, 'audit.export')).toHaveLength(1);
  });
});
