import { verify } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  LINK_PROTOCOL,
  LinkCommandPayloadSchema,
  linkSignedBytes,
  type LinkServiceMessage,
} from '@locker/shared';
import { randomUUID } from 'node:crypto';
import { signedInOperator, testClock, useTestServer, waitFor } from '../../test/harness';
import { LINK_PATH } from './hub';
import { publicKeyFromRaw, rawKeyBytes } from './signing';

// The service's side of the live link, with a bare WebSocket client standing in for a
// kiosk: what the upgrade refuses, what a command looks like on the wire, what the
// service records. The kiosk's side is tested in test/kiosk/link.test.ts.

const stack = useTestServer();
const peers: WebSocket[] = [];
afterEach(() => peers.splice(0).forEach((ws) => ws.terminate()));

interface Peer {
  ws: WebSocket;
  messages: LinkServiceMessage[];
  next<T extends LinkServiceMessage['type']>(
    type: T,
  ): Promise<Extract<LinkServiceMessage, { type: T }>>;
}

function connect(token: string | undefined, protocol = LINK_PROTOCOL): Promise<Peer> {
  const ws = new WebSocket(stack.url.replace('http', 'ws') + LINK_PATH, protocol, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  peers.push(ws);
  ws.on('error', () => undefined);
  const messages: LinkServiceMessage[] = [];
  ws.on('message', (data: Buffer) =>
    messages.push(JSON.parse(data.toString('utf8')) as LinkServiceMessage),
  );
  let seen = 0;
  const next = async <T extends LinkServiceMessage['type']>(type: T) => {
    const found = await waitFor(() => {
      const i = messages.findIndex((m, index) => index >= seen && m.type === type);
      if (i < 0) return undefined;
      seen = i + 1;
      return messages[i];
    });
    return found as Extract<LinkServiceMessage, { type: T }>;
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, messages, next }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject(Object.assign(new Error(body), { status: res.statusCode })));
    });
    ws.once('error', reject);
  });
}

async function refusedWith(promise: Promise<Peer>) {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as Error & { status: number };
  return { status: error.status, body: JSON.parse(error.message) as Record<string, unknown> };
}

describe('the upgrade', () => {
  it('is refused like any terminal request without a valid device token, and elsewhere', async () => {
    const scene = await stack.scene('1:S');
    for (const token of [undefined, 'tdev_not-a-token-at-all-0000']) {
      const refused = await refusedWith(connect(token));
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ code: 'unauthorized', status: 401 });
    }
    await stack.sql`update terminals set status = 'disabled' where id = ${scene.terminal.id}`;
    expect((await refusedWith(connect(scene.terminal.token))).status).toBe(401);
    const other = await stack.scene('1:S');
    const wrongPath = new WebSocket(stack.url.replace('http', 'ws') + '/terminal/v1/other', [
      LINK_PROTOCOL,
    ]);
    peers.push(wrongPath);
    wrongPath.on('error', () => undefined);
    const status = await new Promise((resolve) =>
      wrongPath.once('unexpected-response', (_req, res) => resolve(res.statusCode)),
    );
    expect(status).toBe(404);
    const noProtocol = await refusedWith(connect(other.terminal.token, 'chat'));
    expect(noProtocol).toMatchObject({ status: 400, body: { code: 'bad_request' } });
  });

  it('greets the kiosk with its station, and a revoked terminal loses its link', async () => {
    const scene = await stack.scene('1:S');
    const peer = await connect(scene.terminal.token);
    const hello = await peer.next('hello');
    expect(hello).toMatchObject({ protocol: LINK_PROTOCOL, stationCode: scene.station.code });
    const link = await waitFor(async () => {
      const [row] = await stack.sql`
        select disconnected_at from terminal_links where terminal_id = ${scene.terminal.id}`;
      return row;
    });
    expect(link).toEqual({ disconnected_at: null });
    const closed = new Promise<number>((resolve) => peer.ws.once('close', resolve));
    await stack.sql`update terminals set revoked_at = now() where id = ${scene.terminal.id}`;
    expect(await closed).toBe(4001);
    expect((await refusedWith(connect(scene.terminal.token))).status).toBe(401);
    await waitFor(async () => {
      const [row] = await stack.sql`
        select disconnected_at from terminal_links where terminal_id = ${scene.terminal.id}`;
      return row?.disconnected_at !== null;
    });
  });
});

describe('commands', () => {
  it('reach the connected kiosk signed, naming station, door, kind, expiry and nonce; the outcome is recorded once', async () => {
    const scene = await stack.scene('1:S,2:M');
    const peer = await connect(scene.terminal.token);
    await peer.next('hello');
    const issued = await stack.server.link.commands.issue({
      stationCode: scene.station.code,
      door: 2,
      kind: 'open_door',
      args: { by: 'operator' },
      issuedBy: 'test',
      reason: 'customer stuck',
    });
    const message = await peer.next('command');
    const key = publicKeyFromRaw(rawKeyBytes(stack.linkPublicKey)!);
    expect(
      verify(null, linkSignedBytes(message.payload), key, Buffer.from(message.signature, 'base64')),
    ).toBe(true);
    const payload = LinkCommandPayloadSchema.parse(JSON.parse(message.payload));
    expect(payload).toMatchObject({
      id: issued.id,
      station: scene.station.code,
      door: 2,
      kind: 'open_door',
      args: { by: 'operator' },
    });
    expect(Date.parse(payload.expiresAt) - Date.parse(payload.issuedAt)).toBe(60_000);
    expect(payload.nonce.length).toBeGreaterThanOrEqual(16);
    // A signature is of these exact bytes: one changed door and it no longer verifies.
    const tampered = message.payload.replace('"door":2', '"door":1');
    expect(
      verify(null, linkSignedBytes(tampered), key, Buffer.from(message.signature, 'base64')),
    ).toBe(false);
    expect((await stack.server.link.commands.get(issued.id))?.status).toBe('sent');

    const report = (outcome: string) =>
      peer.ws.send(
        JSON.stringify({
          type: 'outcome',
          id: issued.id,
          outcome,
          detail: {},
          at: new Date().toISOString(),
        }),
      );
    report('opened');
    expect(await peer.next('outcome_ack')).toEqual({ type: 'outcome_ack', id: issued.id });
    const done = await stack.server.link.commands.waitForOutcome(issued.id, 5000);
    expect(done).toMatchObject({ status: 'done', outcome: 'opened' });
    report('did_not_open');
    await peer.next('outcome_ack');
    expect((await stack.server.link.commands.get(issued.id))?.outcome).toBe('opened');
    peer.ws.close();
  });

  it('to a kiosk not connected expire after 60 s, are reported expired and are never sent', async () => {
    const scene = await stack.scene('1:S');
    const issued = await stack.server.link.commands.issue({
      stationCode: scene.station.code,
      door: 1,
      kind: 'open_door',
      args: { by: 'technician' },
      issuedBy: 'test',
    });
    // Sixty seconds later, as far as the database can tell.
    await stack.sql`
      update link_commands set issued_at = issued_at - interval '61 seconds',
                               expires_at = expires_at - interval '61 seconds'
       where id = ${issued.id}`;
    await stack.server.sweepLink();
    expect(await stack.server.link.commands.get(issued.id)).toMatchObject({
      status: 'expired',
      outcome: 'expired',
    });
    const peer = await connect(scene.terminal.token);
    await peer.next('hello');
    const later = await stack.server.link.commands.issue({
      stationCode: scene.station.code,
      door: null,
      kind: 'reload_screen',
      issuedBy: 'test',
    });
    // The next command arrives; the expired one never did.
    const message = await peer.next('command');
    expect(JSON.parse(message.payload)).toMatchObject({ id: later.id });
    expect(peer.messages.filter((m) => m.type === 'command')).toHaveLength(1);
    peer.ws.close();
  });

  it('name a door the station has', async () => {
    const scene = await stack.scene('1:S');
    await expect(
      stack.server.link.commands.issue({
        stationCode: scene.station.code,
        door: 9,
        kind: 'open_door',
        args: { by: 'operator' },
        issuedBy: 'test',
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('door states', () => {
  it('are kept per door with when they were seen; a door left open with nobody at it raises one alert', async () => {
    const scene = await stack.scene('1:S,2:M');
    const peer = await connect(scene.terminal.token);
    await peer.next('hello');
    const send = (doors: object[], full = false) =>
      peer.ws.send(JSON.stringify({ type: 'doors', full, doors, at: new Date().toISOString() }));
    const door = (position: number, closed: boolean, inSession = false) => ({
      position,
      known: true,
      closed,
      itemPresent: false,
      inSession,
    });
    send([door(1, true), door(2, false, true)], true);
    const states = () =>
      stack.sql<{ position: number; closed: boolean; open_since: Date | null }[]>`
        select position, closed, open_since from door_sensor_states
         where station_id = ${scene.station.id} order by position`;
    await waitFor(async () => (await states()).length === 2);
    expect((await states()).map((s) => [s.position, s.closed, s.open_since !== null])).toEqual([
      [1, true, false],
      [2, false, true],
    ]);
    // In a session: no alert, however long.
    const alerts = () =>
      stack.sql`select message from alerts where kind = 'door_left_open'
                 and station_id = ${scene.station.id}`;
    await stack.sql`update door_sensor_states set open_since = now() - interval '1 hour'
                     where station_id = ${scene.station.id} and open_since is not null`;
    await stack.server.sweepLink();
    expect(await alerts()).toHaveLength(0);
    // The session ends with the door still open: one alert, however many sweeps.
    send([door(2, false, false)]);
    await waitFor(async () => {
      const [row] = await stack.sql`select in_session from door_sensor_states
                                     where station_id = ${scene.station.id} and position = 2`;
      return row?.in_session === false;
    });
    await stack.server.sweepLink();
    await stack.server.sweepLink();
    expect(await alerts()).toEqual([
      { message: expect.stringContaining('door 2 open for more than') as string },
    ]);
    peer.ws.close();
  });

  it("a door the kiosk's supervision reports open (found open, opened unseen) reaches the stream and the station page, unless the link saw it since", async () => {
    const scene = await stack.scene('1:S,2:S');
    const support = await signedInOperator(stack, testClock(), 'support');
    const controller = new AbortController();
    const response = await fetch(`${stack.url}/ops/v1/alerts/stream`, {
      headers: { cookie: support.client.cookie()! },
      signal: controller.signal,
    });
    const doorEvents: { station_code: string; at: string; doors: Record<string, unknown>[] }[] = [];
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
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (/^event: door$/m.test(block) && data)
              doorEvents.push(JSON.parse(data) as (typeof doorEvents)[number]);
          }
        }
      } catch {
        // aborted
      }
    })();
    await waitFor(() => connected);
    try {
      const report = (door: number, body: object) =>
        scene.terminal.api.post(`/terminal/v1/doors/${door}/events`, {
          eventId: randomUUID(),
          ...body,
        });
      const sensorOf = async (door: number) => {
        const page = await support.client.get(`/ops/v1/stations/${scene.station.code}`);
        const found = (
          page.body.doors as { position: number; sensor: Record<string, unknown> }[]
        ).find((d) => d.position === door);
        return found?.sensor;
      };

      // Forced open with nobody at it, seen a minute ago (the report queue's time).
      const seen = new Date(Date.now() - 60_000).toISOString();
      const forced = await report(2, {
        kind: 'opened_unseen',
        itemPresent: true,
        visit: null,
        occurred_at: seen,
      });
      expect(forced.status).toBe(200);
      const first = await waitFor(() => doorEvents[0]);
      expect(first).toMatchObject({
        station_code: scene.station.code,
        at: seen,
        doors: [{ position: 2, state: 'open', item_present: true, in_session: false }],
      });
      expect(await sensorOf(2)).toMatchObject({
        state: 'open',
        item_present: true,
        in_session: false,
        open_since: seen,
        seen_at: seen,
      });

      // The link then sees the door shut; a door event seen before that, arriving late,
      // changes nothing and announces nothing.
      const peer = await connect(scene.terminal.token);
      await peer.next('hello');
      const live = (position: number, closed: boolean) => ({
        position,
        known: true,
        closed,
        itemPresent: false,
        inSession: false,
      });
      peer.ws.send(
        JSON.stringify({
          type: 'doors',
          full: false,
          doors: [live(2, true)],
          at: new Date().toISOString(),
        }),
      );
      await waitFor(() => doorEvents.length === 2);
      expect(doorEvents[1]!.doors).toEqual([
        expect.objectContaining({ position: 2, state: 'closed' }),
      ]);
      const late = await report(2, {
        kind: 'found_open',
        itemPresent: false,
        visit: 'pickup',
        occurred_at: new Date(Date.now() - 30_000).toISOString(),
      });
      expect(late.status).toBe(200);
      // A board silent after the pulse says nothing of the door's state.
      expect(
        (await report(1, { kind: 'unlock_unknown', itemPresent: null, visit: 'pickup' })).status,
      ).toBe(200);
      // Found open at an unlock now: a session is at the door.
      await report(1, { kind: 'found_open', itemPresent: false, visit: 'pickup' });
      await waitFor(() => doorEvents.length >= 3);
      // Notifications come in commit order: had the late report of door 2 or the silent
      // board announced anything, it would have come before door 1's.
      expect(doorEvents.slice(2)).toEqual([
        expect.objectContaining({
          doors: [
            {
              position: 1,
              state: 'open',
              item_present: false,
              in_session: true,
              open_since: expect.any(String) as string,
            },
          ],
        }),
      ]);
      expect(await sensorOf(2)).toMatchObject({ state: 'closed', item_present: false });
      peer.ws.close();
    } finally {
      controller.abort();
    }
  });
});
