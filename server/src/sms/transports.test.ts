import { describe, expect, it } from 'vitest';
import { loopbackServers } from '../../test/receiver';
import { smsTransportFrom } from './transports';

const loopback = loopbackServers();

/** Twilio's Messages API as far as the transport uses it; answers `status` each time. */
async function provider(status: () => number) {
  const seen: { path: string; authorization?: string; form: URLSearchParams }[] = [];
  let connections = 0;
  const { server, url } = await loopback((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({
        path: req.url ?? '',
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        form: new URLSearchParams(body),
      });
      res.writeHead(status(), { 'content-type': 'application/json' }).end('{"sid":"SM1"}');
    });
  });
  server.on('connection', () => connections++);
  return { url, seen, connections: () => connections };
}

describe('the Twilio transport', () => {
  it('posts each message as the form Twilio reads, over one kept connection', async () => {
    const fake = await provider(() => 201);
    const transport = smsTransportFrom('twilio', {
      accountSid: 'AC 1/2',
      authToken: 'tok',
      from: '+38349000000',
      baseUrl: fake.url,
    });
    for (let i = 0; i < 5; i++)
      await transport.send({ to: '+38344123456', language: 'sq', text: `Kodi ${i} & më shumë` });
    expect(fake.seen).toHaveLength(5);
    expect(fake.seen[4]).toEqual({
      path: '/2010-04-01/Accounts/AC%201%2F2/Messages.json',
      authorization: 'Basic ' + Buffer.from('AC 1/2:tok').toString('base64'),
      form: new URLSearchParams({
        To: '+38344123456',
        From: '+38349000000',
        Body: 'Kodi 4 & më shumë',
      }),
    });
    expect(fake.connections()).toBe(1);
  });

  it('fails a message the provider did not accept, and the next one goes out', async () => {
    let answer = 400;
    const fake = await provider(() => answer);
    const transport = smsTransportFrom('twilio', {
      accountSid: 'AC1',
      authToken: 'tok',
      from: '+38349000000',
      baseUrl: fake.url,
    });
    const message = { to: '+38344123456', language: 'en', text: 'Your code' };
    await expect(transport.send(message)).rejects.toThrow('SMS provider answered 400');
    answer = 201;
    await expect(transport.send(message)).resolves.toBeUndefined();
    expect(fake.seen).toHaveLength(2);
  });
});
