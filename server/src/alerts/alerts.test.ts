import { randomBytes } from 'node:crypto';
import { AlertSchema, AlertStreamEventSchema } from '@locker/shared';
import { Webhook } from 'standardwebhooks';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, waitFor, type TestStack } from '../../test/harness';
import { opsClient, signedInOperator, testClock } from '../../test/opsClient';
import { webhookReceiver, type WebhookReceiver } from '../../test/receiver';
import { runAdmin } from '../admin/run';
import { markSilentTerminalsOffline } from '../ops/liveness';
import { startServer, type RunningServer } from '../server';

let stack: TestStack;
let second: RunningServer;
let receiver: WebhookReceiver;
const clock = testClock();
const secret = `whsec_${randomBytes(32).toString('base64')}`;
type Op = Awaited<ReturnType<typeof signedInOperator>>;
let operations: Op;

beforeAll(async () => {
  receiver = await webhookReceiver();
  stack = await startTestServer({ clock: clock.now });
  // A second instance on the same database; only it knows the operations webhook.
  second = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: stack.databaseUrl,
    logLevel: 'silent',
    smsTransport: `file:${stack.smsFile}`,
    development: true,
    clock: clock.now,
    opsWebhookUrl: receiver.url,
    opsWebhookSecret: secret,
  });
  operations = await signedInOperator(stack, clock, 'operations');
});
afterAll(async () => {
  await second.close();
  await stack.close();
  await receiver.close();
});

async function alertsOf(stationId: string) {
  return stack.sql<
    { id: string; kind: string; status: string; occurrences: number; resolution: string | null }[]
  >`
    select id::text, kind, status, occurrences, resolution from alerts
     where station_id = ${stationId} order by id`;
}

/** A live `GET /ops/v1/alerts/stream` of the given instance, its events parsed as they come. */
async function stream(baseUrl: string, cookie: string) {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/ops/v1/alerts/stream`, {
    headers: { cookie },
    signal: controller.signal,
  });
  const events: z.infer<typeof AlertStreamEventSchema>[] = [];
  const raw: string[] = [];
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
          raw.push(block);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (block.includes('event: alert') && data)
            events.push(AlertStreamEventSchema.parse(JSON.parse(data.slice(6))));
        }
      }
    } catch {
      // aborted
    }
  })();
  await waitFor(() => raw.some((b) => b.includes(': connected')));
  return { response, events, raw, close: () => controller.abort() };
}

describe('one alert per condition', () => {
  it('folds repeats of a door fault into one alert with its count; another door gets its own', async () => {
    const { station, terminal } = await stack.scene('1:S,2:M');
    for (let i = 0; i < 3; i++) {
      expect((await terminal.api.post('/terminal/v1/door/fault', { position: 1 })).status).toBe(
        200,
      );
    }
    await terminal.api.post('/terminal/v1/door/fault', { position: 2, problem: 'will_not_close' });
    const alerts = await alertsOf(station.id);
    expect(alerts.map((a) => [a.kind, a.status, a.occurrences])).toEqual([
      ['door_fault', 'open', 3],
      ['door_fault', 'open', 1],
    ]);
    const [door] = await stack.sql`
      select out_of_service_reason, out_of_service_by from doors where station_id = ${station.id} and position = 1`;
    expect(door).toEqual({
      out_of_service_reason: 'door did not open (reported by the kiosk)',
      out_of_service_by: 'terminal',
    });
  });

  it('keeps one open alert when many instances raise the same condition at once', async () => {
    const { station, terminal } = await stack.scene('1:S');
    await Promise.all(
      Array.from(
        { length: 12 },
        (_, i) =>
          (i % 2 ? stack.sql : second.sql)`
          insert into alerts (kind, terminal_id, station_id, message)
          values ('pickup_brute_force', ${terminal.id}, ${station.id}, 'limit hit')`,
      ),
    );
    expect((await alertsOf(station.id)).map((a) => [a.status, a.occurrences])).toEqual([
      ['open', 12],
    ]);
    await expect(
      stack.sql`insert into alerts (kind, terminal_id, station_id, message, condition_key)
                select kind, terminal_id, station_id, message, condition_key from alerts
                 where station_id = ${station.id}`,
    ).resolves.toBeDefined();
    expect((await alertsOf(station.id)).map((a) => a.occurrences)).toEqual([13]);
  });
});

describe('conditions that clear resolve their alert', () => {
  it('resolves a terminal-offline alert when the terminal sends a heartbeat; a new silence opens a new one', async () => {
    const { station, terminal } = await stack.scene('1:S');
    await stack.sql`update terminals set last_heartbeat_at = now() - interval '1 hour' where id = ${terminal.id}`;
    await markSilentTerminalsOffline(stack.sql, stack.server.logger, 60);
    expect((await alertsOf(station.id)).map((a) => [a.kind, a.status])).toEqual([
      ['terminal_offline', 'open'],
    ]);
    expect((await terminal.api.post('/terminal/v1/heartbeat', {})).status).toBe(200);
    await expect
      .poll(async () => (await alertsOf(station.id)).map((a) => [a.status, a.resolution]))
      .toEqual([['resolved', 'cleared']]);
    await stack.sql`update terminals set last_heartbeat_at = now() - interval '1 hour' where id = ${terminal.id}`;
    await markSilentTerminalsOffline(stack.sql, stack.server.logger, 60);
    expect((await alertsOf(station.id)).map((a) => a.status)).toEqual(['resolved', 'open']);
  });

  it('resolves a door-fault alert when the door is put back in service', async () => {
    const { station, terminal } = await stack.scene('1:S');
    await terminal.api.post('/terminal/v1/door/fault', { position: 1 });
    const back = await operations.client.post(`/ops/v1/stations/${station.code}/doors/1/service`, {
      in_service: true,
      reason: 'lock replaced',
    });
    expect(back.status).toBe(200);
    const [alert] = await stack.sql`
      select status, resolution, resolved_by, resolve_note from alerts where station_id = ${station.id}`;
    expect(alert).toEqual({
      status: 'resolved',
      resolution: 'cleared',
      resolved_by: 'system',
      resolve_note: 'the door is back in service',
    });
  });
});

describe('acknowledging and resolving', () => {
  it('acknowledges with who, when and a note, then resolves; refuses support, and audits all', async () => {
    const { station, terminal } = await stack.scene('1:S');
    await terminal.api.post('/terminal/v1/door/fault', { position: 1 });
    const id = (await alertsOf(station.id))[0]!.id;
    const support = await signedInOperator(stack, clock, 'support');
    expect((await support.client.get('/ops/v1/alerts')).status).toBe(200);
    expect((await support.client.post(`/ops/v1/alerts/${id}/acknowledge`, {})).status).toBe(403);
    const acked = await operations.client.post(`/ops/v1/alerts/${id}/acknowledge`, {
      note: 'technician sent',
    });
    expect(acked.status).toBe(200);
    expect(AlertSchema.parse(acked.body)).toMatchObject({
      status: 'acknowledged',
      acknowledged: { by: operations.email, note: 'technician sent' },
      station_code: station.code,
      door: 1,
    });
    expect((await operations.client.post(`/ops/v1/alerts/${id}/acknowledge`, {})).status).toBe(409);
    // Still counts repeats while acknowledged.
    await terminal.api.post('/terminal/v1/door/fault', { position: 1 });
    const inbox = await operations.client.get(`/ops/v1/alerts?station=${station.code}`);
    expect(inbox.body.items).toEqual([
      expect.objectContaining({ id, status: 'acknowledged', occurrences: 2 }),
    ]);
    const resolved = await operations.client.post(`/ops/v1/alerts/${id}/resolve`, {
      note: 'door replaced',
    });
    expect(resolved.body.resolved).toMatchObject({
      by: operations.email,
      note: 'door replaced',
      resolution: 'operator',
    });
    expect(
      (await operations.client.get(`/ops/v1/alerts?station=${station.code}`)).body.items,
    ).toEqual([]);
    const history = await operations.client.get(
      `/ops/v1/alerts?station=${station.code}&status=resolved`,
    );
    expect(history.body.items.map((a: { id: string }) => a.id)).toEqual([id]);
    const audited = await stack.sql`select actor, action, outcome, reason from audit_log
                       where target in (${id}, ${`POST /ops/v1/alerts/${id}/acknowledge`}) order by id`;
    expect(audited).toEqual([
      { actor: support.email, action: 'alert.acknowledge', outcome: 'refused', reason: null },
      {
        actor: operations.email,
        action: 'alert.acknowledge',
        outcome: 'ok',
        reason: 'technician sent',
      },
      { actor: operations.email, action: 'alert.resolve', outcome: 'ok', reason: 'door replaced' },
    ]);
  });

  it('does the same from the CLI, audited as the OS user', async () => {
    const { station, terminal } = await stack.scene('1:S');
    await terminal.api.post('/terminal/v1/door/fault', { position: 1 });
    const cli = async (...args: string[]) => {
      let out = '';
      let err = '';
      const code = await runAdmin(args, {
        out: (t) => (out += t),
        err: (t) => (err += t),
        env: { ...process.env, DATABASE_URL: stack.databaseUrl, USER: 'arta' },
      });
      expect(code, err).toBe(0);
      return JSON.parse(out) as Record<string, any>;
    };
    const listed = await cli('alert', 'list', '--station', station.code);
    expect(listed.alerts).toEqual([
      expect.objectContaining({ kind: 'door_fault', status: 'open', door: 1 }),
    ]);
    const id = listed.alerts[0].id as string;
    expect(
      (await cli('alert', 'ack', '--id', id, '--note', 'on my way')).acknowledged,
    ).toMatchObject({
      by: 'cli:arta',
      note: 'on my way',
    });
    expect((await cli('alert', 'resolve', '--id', id)).status).toBe('resolved');
    const offline = await cli('terminal', 'list', '--status', 'online', '--station', station.code);
    expect(offline.terminals.map((t: { id: string }) => t.id)).toEqual([terminal.id]);
    const audited =
      await stack.sql`select actor, role, action from audit_log where target = ${id} order by id`;
    expect(audited).toEqual([
      { actor: 'cli:arta', role: 'cli', action: 'alert.acknowledge' },
      { actor: 'cli:arta', role: 'cli', action: 'alert.resolve' },
    ]);
  });
});

describe('delivered at once', () => {
  it('streams an alert raised on one instance to a console connected to the other, and every change after', async () => {
    const { station, terminal } = await stack.scene('1:S');
    const tech = await signedInOperator(stack, clock, 'technician', [station.code]);
    const other = await stack.scene('1:S');
    const all = await stream(second.url, operations.client.cookie()!);
    const scoped = await stream(second.url, tech.client.cookie()!);
    expect(all.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // Raised through the first instance (the kiosk's door fault), seen on the second.
    await terminal.api.post('/terminal/v1/door/fault', { position: 1 });
    await other.terminal.api.post('/terminal/v1/door/fault', { position: 1 });
    const opened = await waitFor(() =>
      all.events.find((e) => e.alert.station_code === station.code),
    );
    expect(opened).toMatchObject({
      event: 'opened',
      alert: { kind: 'door_fault', status: 'open' },
    });
    await terminal.api.post('/terminal/v1/door/fault', { position: 1 });
    await waitFor(() =>
      all.events.find((e) => e.event === 'occurred' && e.alert.occurrences === 2),
    );
    await operations.client.post(`/ops/v1/alerts/${opened.alert.id}/acknowledge`, { note: 'seen' });
    await waitFor(() =>
      all.events.find((e) => e.event === 'acknowledged' && e.alert.id === opened.alert.id),
    );
    // Resolved by itself when the door comes back, through the CLI (no server involved).
    const code = await runAdmin(
      [
        'door',
        'set',
        '--station',
        station.code,
        '--position',
        '1',
        '--service',
        'in',
        '--reason',
        'fixed',
      ],
      { out: () => {}, err: () => {}, env: { ...process.env, DATABASE_URL: stack.databaseUrl } },
    );
    expect(code).toBe(0);
    await waitFor(() =>
      all.events.find((e) => e.event === 'resolved' && e.alert.id === opened.alert.id),
    );
    // The technician sees their station's alert only.
    await waitFor(() => scoped.events.find((e) => e.event === 'resolved'));
    expect(new Set(scoped.events.map((e) => e.alert.station_code))).toEqual(
      new Set([station.code]),
    );
    expect(all.events.some((e) => e.alert.station_code === other.station.code)).toBe(true);
    all.close();
    scoped.close();
  });

  it('refuses the stream without a session', async () => {
    const anonymous = opsClient(second.url);
    expect((await anonymous.get('/ops/v1/alerts/stream')).status).toBe(401);
  });

  it('posts alert events to the operations webhook, signed like merchant webhooks, retried until accepted', async () => {
    const { station, terminal } = await stack.scene('1:S');
    receiver.state.answer = { status: 503, headers: { 'retry-after': '1' } };
    const before = receiver.attempts();
    await terminal.api.post('/terminal/v1/door/fault', { position: 1 });
    await waitFor(() => receiver.attempts() > before);
    const ofStation = () =>
      receiver.deliveries.filter((d) => JSON.parse(d.raw).data.alert.station_code === station.code);
    expect(ofStation()).toHaveLength(0);
    receiver.state.answer = { status: 204 };
    const delivery = await waitFor(
      () =>
        receiver.deliveries.find((d) => JSON.parse(d.raw).data.alert.station_code === station.code),
      20_000,
    );
    const event = new Webhook(secret).verify(delivery.raw, delivery.headers) as {
      type: string;
      data: { alert: unknown };
    };
    expect(event.type).toBe('alert.opened');
    expect(AlertSchema.parse(event.data.alert)).toMatchObject({
      kind: 'door_fault',
      station_code: station.code,
    });
    // The receiver has the delivery; its outcome is recorded once the answer is back.
    await expect
      .poll(async () => {
        const [row] = await stack.sql`
          select attempts, delivered_at is not null as delivered from outbox
           where channel = 'ops_webhook' and payload->>'event_id' = ${delivery.headers['webhook-id']!}`;
        return row;
      })
      .toEqual({ attempts: 2, delivered: true });
    // A repeat of the condition is not a new event; a resolution is.
    await terminal.api.post('/terminal/v1/door/fault', { position: 1 });
    const [alert] = await stack.sql`select id::text from alerts where station_id = ${station.id}`;
    await operations.client.post(`/ops/v1/alerts/${alert!.id}/resolve`, {});
    const resolved = await waitFor(() =>
      receiver.deliveries
        .map(
          (d) => JSON.parse(d.raw) as { type: string; data: { alert: { station_code: string } } },
        )
        .find((e) => e.type === 'alert.resolved' && e.data.alert.station_code === station.code),
    );
    expect(resolved).toBeDefined();
    const types = receiver.deliveries
      .map((d) => JSON.parse(d.raw) as { type: string; data: { alert: { station_code: string } } })
      .filter((e) => e.data.alert.station_code === station.code)
      .map((e) => e.type);
    expect(types).toEqual(['alert.opened', 'alert.resolved']);
  });
});
