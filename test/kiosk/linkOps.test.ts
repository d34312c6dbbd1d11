import { afterEach, describe, expect, it } from 'vitest';
import { KioskCore, loadKioskConfig } from '@locker/kiosk';
import {
  generateLinkKey,
  signedInOperator,
  startTestServer,
  testClock,
  waitFor,
  type TestStack,
} from '@locker/server/testing';
import { writeTestKioskConfig } from './fixture';

// The live link through the operations API (/ops/v1): operators with their roles and
// second factor, the real server and PostgreSQL, the real kiosk core on the simulated
// cabinet.

const key = generateLinkKey();
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function opsScene(serverExtra: object = {}) {
  const clock = testClock();
  const stack = await startTestServer({
    linkSigningKey: key.seed,
    clock: clock.now,
    ...serverExtra,
  });
  stops.push(() => stack.close());
  const scene = await stack.scene('1:S,2:S,3:M,4:L');
  const configFile = writeTestKioskConfig(stack.url, scene.terminal.token, {
    linkPublicKey: key.publicKey,
    doorWatchIntervalMs: 200,
  });
  const core = await KioskCore.start(loadKioskConfig(configFile), { stdout: false });
  let stopped: Promise<void> | undefined;
  const stopKiosk = () => (stopped ??= core.stop());
  stops.push(stopKiosk);
  await waitFor(async () => {
    const s = await core.getState();
    return s.config?.station_code && s.link === 'connected';
  }, 15_000);
  const cabinet = core.hardware.simulator!.cabinet;
  const code = scene.station.code;
  const open = (
    client: Awaited<ReturnType<typeof signedInOperator>>['client'],
    door: number,
    body: object = { reason: 'customer stuck at the door' },
  ) => client.post(`/ops/v1/stations/${code}/doors/${door}/open`, body);
  const auditOf = (action: string) =>
    stack.sql<{ actor: string; role: string; outcome: string; detail: Record<string, unknown> }[]>`
      select actor, role, outcome, detail from audit_log where action = ${action} order by id`;
  return { clock, stack, scene, core, cabinet, code, open, auditOf, stopKiosk };
}

/** The operations stream of one operator, its events as they come. */
async function opsStream(stack: TestStack, cookie: string) {
  const controller = new AbortController();
  const response = await fetch(`${stack.url}/ops/v1/alerts/stream`, {
    headers: { cookie },
    signal: controller.signal,
  });
  const events: { event: string; data: Record<string, any>; at: number }[] = [];
  let connected = false;
  void (async () => {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.includes(': connected')) connected = true;
          const event = /^event: (\w+)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data)
            events.push({ event, data: JSON.parse(data) as Record<string, any>, at: Date.now() });
        }
      }
    } catch {
      // aborted
    }
  })();
  stops.push(() => Promise.resolve(controller.abort()));
  await waitFor(() => connected);
  return events;
}

describe('a remote open through the operations API', () => {
  it('opens the simulated door, answers its outcome, audits both, and the door is live on the stream and the station page', async () => {
    const s = await opsScene();
    const ops = await signedInOperator(s.stack, s.clock, 'operations');
    const events = await opsStream(s.stack, ops.client.cookie()!);

    const missing = await s.open(ops.client, 2, {});
    expect(missing.status).toBe(422);
    const answer = await s.open(ops.client, 2);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      station_code: s.code,
      door: 2,
      kind: 'open_door',
      status: 'done',
      outcome: 'opened',
      issued_by: ops.email,
      reason: 'customer stuck at the door',
    });
    expect(s.cabinet.door(2).closed).toBe(false);
    expect(await s.auditOf('door.remote_open')).toEqual([
      expect.objectContaining({ actor: ops.email, role: 'operations', outcome: 'ok' }),
    ]);
    expect(await s.auditOf('door.remote_open.outcome')).toEqual([
      expect.objectContaining({
        actor: 'system:link',
        outcome: 'ok',
        detail: expect.objectContaining({ outcome: 'opened', issued_by: ops.email }) as unknown,
      }),
    ]);
    // The stream shows the door standing open, in the remote open's session.
    const doorEvent = await waitFor(() =>
      events.find(
        (e) =>
          e.event === 'door' &&
          e.data.station_code === s.code &&
          (e.data.doors as { position: number; state: string }[]).some(
            (d) => d.position === 2 && d.state === 'open',
          ),
      ),
    );
    expect(doorEvent.data.doors).toContainEqual(
      expect.objectContaining({ position: 2, state: 'open', in_session: true }),
    );
    const detail = await ops.client.get(`/ops/v1/stations/${s.code}`);
    expect(detail.body.terminals[0].link).toMatchObject({ connected: true });
    expect(
      detail.body.doors.find((d: { position: number }) => d.position === 2).sensor,
    ).toMatchObject({ state: 'open', in_session: true });
    const polled = await ops.client.get(`/ops/v1/link/commands/${answer.body.id}`);
    expect(polled.body).toMatchObject({ id: answer.body.id, outcome: 'opened' });
  });

  it('is refused server-side: support gets 403 and an audit row, a stale second factor 403 step_up_required, another technician’s station 403; no door opens', async () => {
    const s = await opsScene();
    const support = await signedInOperator(s.stack, s.clock, 'support');
    const refused = await s.open(support.client, 1);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    expect(await s.auditOf('door.remote_open')).toEqual([
      expect.objectContaining({ actor: support.email, role: 'support', outcome: 'refused' }),
    ]);

    const elsewhere = await s.stack.station('1:S');
    const technician = await signedInOperator(s.stack, s.clock, 'technician', [elsewhere.code]);
    expect((await s.open(technician.client, 1)).status).toBe(403);

    const ops = await signedInOperator(s.stack, s.clock, 'operations');
    s.clock.advance(6 * 60_000);
    const stale = await s.open(ops.client, 1);
    expect(stale.status).toBe(403);
    expect(stale.body.code).toBe('step_up_required');
    expect((await s.auditOf('door.remote_open')).map((r) => [r.actor, r.outcome])).toEqual([
      [support.email, 'refused'],
      [technician.email, 'refused'],
      [ops.email, 'refused'],
    ]);
    expect(s.cabinet.door(1).closed).toBe(true);
    const [commands] = await s.stack.sql`select count(*)::int as n from link_commands`;
    expect(commands).toEqual({ n: 0 });
    // The code again, and it goes through.
    expect((await ops.client.post('/ops/v1/session/step-up', { code: ops.code() })).status).toBe(
      204,
    );
    expect((await s.open(ops.client, 1)).body.outcome).toBe('opened');
  });

  it('past the limit waits for a second administrator, and the burst raises an alert', async () => {
    const s = await opsScene();
    const ops = await signedInOperator(s.stack, s.clock, 'operations');
    for (const door of [1, 2, 3]) expect((await s.open(ops.client, door)).status).toBe(200);
    const held = await s.open(ops.client, 4);
    expect(held.status).toBe(429);
    expect(held.body.code).toBe('approval_required');
    const approval = held.headers.get('location')!;
    expect(approval).toMatch(/^\/ops\/v1\/link\/approvals\/[0-9a-f-]{36}$/);
    expect(s.cabinet.door(4).closed).toBe(true);
    const [burst] = await s.stack.sql`
      select severity, status from alerts where kind = 'remote_open_burst'`;
    expect(burst).toEqual({ severity: 'critical', status: 'open' });

    // Not by the one who asked, nor by a role that does not manage operators.
    expect((await ops.client.post(`${approval}/approve`)).status).toBe(403);
    const admin = await signedInOperator(s.stack, s.clock, 'admin');
    const approved = await admin.client.post(`${approval}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ door: 4, outcome: 'opened', issued_by: ops.email });
    expect(s.cabinet.door(4).closed).toBe(false);
    expect((await admin.client.post(`${approval}/approve`)).status).toBe(409);
  });

  it('to a kiosk that is away answers 202 to poll, and the command expires unrun', async () => {
    const s = await opsScene();
    const ops = await signedInOperator(s.stack, s.clock, 'operations');
    await s.stopKiosk();
    const answer = await s.open(ops.client, 1, { reason: 'customer stuck', wait_seconds: 1 });
    expect(answer.status).toBe(202);
    expect(answer.headers.get('location')).toBe(`/ops/v1/link/commands/${answer.body.id}`);
    expect(answer.body.status).toBe('pending');
    await s.stack.sql`
      update link_commands set issued_at = issued_at - interval '61 seconds',
                               expires_at = expires_at - interval '61 seconds'`;
    await s.stack.server.sweepLink();
    const later = await ops.client.get(`/ops/v1/link/commands/${answer.body.id}`);
    expect(later.body).toMatchObject({ status: 'expired', outcome: 'expired' });
    expect(await s.auditOf('door.remote_open.outcome')).toEqual([
      expect.objectContaining({
        detail: expect.objectContaining({ outcome: 'expired' }) as unknown,
      }),
    ]);
  });
});

describe('a door left open with nobody at it', () => {
  it('opens an alert through the lifecycle, resolved by itself once the door is seen shut', async () => {
    const s = await opsScene({ doorLeftOpenSeconds: 1 });
    s.cabinet.openDoor(3); // by hand, no session
    const alert = await waitFor(async () => {
      const [row] = await s.stack.sql<{ status: string; door: number }[]>`
        select a.status, d.position as door from alerts a join doors d on d.id = a.door_id
         where a.kind = 'door_left_open' and a.station_id = ${s.scene.station.id}`;
      return row;
    }, 15_000);
    expect(alert).toEqual({ status: 'open', door: 3 });
    s.cabinet.closeDoor(3, false);
    await waitFor(async () => {
      const [row] = await s.stack.sql<{ status: string; resolution: string }[]>`
        select status, resolution from alerts where kind = 'door_left_open'`;
      return row?.status === 'resolved' && row.resolution === 'cleared';
    });
  });
});
