import { LINK_PROTOCOL } from '@locker/shared';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useTestServer, waitFor } from '../../test/harness';
import { LINK_PATH } from './hub';

// The links' pings, spread over the interval (PING_SLICES), with the interval at 1 s.
const stack = useTestServer({ linkPingSeconds: 1 });
const peers: WebSocket[] = [];
afterEach(() => peers.splice(0).forEach((ws) => ws.terminate()));

/** A kiosk's link; `answers: false`, one that never answers a ping. */
function link(token: string, answers = true) {
  const ws = new WebSocket(stack.url.replace('http', 'ws') + LINK_PATH, LINK_PROTOCOL, {
    headers: { authorization: `Bearer ${token}` },
    autoPong: answers,
  });
  peers.push(ws);
  const pings: number[] = [];
  ws.on('ping', () => pings.push(performance.now()));
  ws.on('error', () => undefined);
  let closed = false;
  ws.on('close', () => (closed = true));
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, pings, opened, isClosed: () => closed };
}

describe('pings of the live link', () => {
  it('reach each link once an interval, spread over it rather than all at once', async () => {
    const scene = await stack.scene('1:S');
    const links = [link(scene.terminal.token)];
    for (let i = 1; i < 10; i++) links.push(link((await stack.terminal(scene.station.code)).token));
    await Promise.all(links.map((l) => l.opened));
    const start = performance.now();
    await waitFor(() => links.every((l) => l.pings.length >= 2) || undefined);
    // Every link pinged again about a second after its first ping.
    for (const l of links) {
      const gap = l.pings[1]! - l.pings[0]!;
      expect(gap).toBeGreaterThan(700);
      expect(gap).toBeLessThan(2000);
      expect(l.isClosed()).toBe(false);
    }
    // Links accepted one after another sit in successive slices of the second (20 ms
    // each): their first pings are spread, where one loop sent them together.
    const firsts = links.map((l) => l.pings[0]! - start);
    expect(Math.max(...firsts) - Math.min(...firsts)).toBeGreaterThan(100);
  });

  it('drops a link that does not answer its ping, and keeps those that do', async () => {
    const scene = await stack.scene('1:S');
    const silent = link(scene.terminal.token, false);
    const talking = link((await stack.terminal(scene.station.code)).token);
    await Promise.all([silent.opened, talking.opened]);
    await waitFor(() => silent.isClosed() || undefined);
    expect(silent.pings.length).toBeGreaterThanOrEqual(1);
    expect(talking.isClosed()).toBe(false);
    expect(talking.pings.length).toBeGreaterThanOrEqual(1);
  });
});
