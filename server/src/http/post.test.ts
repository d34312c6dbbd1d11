import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loopbackServers } from '../../test/receiver';
import { SendTimeout, keptAgents, post } from './post';

const loopback = loopbackServers();

const options = (more: { lookup?: LookupFunction; totalTimeoutMs?: number } = {}) => ({
  agents: keptAgents(),
  connectTimeoutMs: 1_000,
  totalTimeoutMs: 2_000,
  ...more,
});

/** A receiver that answers `status` with a body, or never when `status` is 0. */
async function receiver(status: number) {
  const events = { connections: 0, closed: 0 };
  const { server, url } = await loopback((req, res) => {
    req.resume();
    req.on('end', () => {
      if (status) res.writeHead(status, { 'content-type': 'text/plain' }).end('x'.repeat(50_000));
    });
  });
  server.on('connection', (socket) => {
    events.connections++;
    socket.on('close', () => events.closed++);
  });
  return { server, url: new URL(`${url}/in`), events };
}

describe('post', () => {
  it('reads a refused answer whole, so the next POST reuses the connection', async () => {
    const { url, events } = await receiver(400);
    const sending = options();
    expect((await post(url, {}, 'a', sending)).status).toBe(400);
    expect((await post(url, {}, 'b', sending)).status).toBe(400);
    expect(events.connections).toBe(1);
  });

  it('gives up on a receiver that never answers, and closes the connection', async () => {
    const { url, events } = await receiver(0);
    await expect(post(url, {}, 'a', options({ totalTimeoutMs: 150 }))).rejects.toBeInstanceOf(
      SendTimeout,
    );
    await expect.poll(() => events.closed).toBe(1);
  });

  it('says which addresses refused when a name has several and every one does', async () => {
    // A port nothing listens on: the receiver's, once it is closed.
    const { server, url } = await receiver(200);
    await new Promise((resolve) => server.close(resolve));
    const twoAddresses: LookupFunction = (_host, lookupOptions, callback) => {
      if (lookupOptions.all)
        (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
          { address: '127.0.0.1', family: 4 },
          { address: '127.0.0.2', family: 4 },
        ]);
      else callback(null, '127.0.0.1', 4);
    };
    const named = new URL(url);
    named.hostname = 'receiver.test';
    const failure = await post(named, {}, 'code 12345678', options({ lookup: twoAddresses })).then(
      () => undefined,
      (error: unknown) => error as NodeJS.ErrnoException,
    );
    expect(failure?.code).toBe('ECONNREFUSED');
    expect(failure?.message).toContain(`ECONNREFUSED 127.0.0.1:${url.port}`);
    expect(failure?.message).toContain(`ECONNREFUSED 127.0.0.2:${url.port}`);
    expect(failure?.message).not.toContain('12345678');
  });
});
