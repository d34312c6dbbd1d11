import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../admin/run';
import { DeliveryError, type OutboxMessage } from '../outbox/outbox';
import { client, useTestServer, waitFor } from '../../test/harness';
import { webhookReceiver, type WebhookReceiver } from '../../test/receiver';
import { checkedAddresses, RefusedDestination, type Resolve } from './address';
import { webhookChannel } from './channel';
import { DEVELOPMENT_KEYRING } from './secretKeys';
import type { QueuedWebhook } from './events';

// A deployment as production runs it: WEBHOOK_ALLOW_PRIVATE unset.
const stack = useTestServer({ webhookAllowPrivate: false });
let hook: WebhookReceiver;
beforeAll(async () => {
  hook = await webhookReceiver();
  // What an internal service could answer: the old server disabled the endpoint on it.
  hook.state.answer = { status: 410 };
});
afterAll(() => hook.close());

/** Every form of an internal address the attacker used, as a URL host. */
const INTERNAL_HOSTS = [
  '127.0.0.1',
  'localhost',
  '127.1',
  '2130706433',
  '0x7f000001',
  '[::1]',
  '[::ffff:127.0.0.1]',
  '169.254.169.254',
  '10.0.0.1',
  '172.16.0.1',
  '192.168.1.1',
  '[fd00::1]',
  '0.0.0.0',
  '100.64.0.1',
  '224.0.0.1',
  '255.255.255.255',
  '[fe80::1]',
  '[::]',
];

/** A resolver that knows a few names, as a rebinding attacker's DNS would answer them. */
function fakeDns(table: Record<string, string[]>): Resolve & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses)
      return Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
    return Promise.resolve(
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return Object.assign(resolve, { calls });
}

const DNS = {
  '127.0.0.1.nip.io': ['127.0.0.1'],
  'rebind.example': ['127.0.0.1'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.215.14', '10.0.0.7'],
  'public.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
};

describe('webhook destinations: only public addresses', () => {
  it('refuses every internal form of an address, and names resolving to one, whatever the resolver', async () => {
    const resolve = fakeDns(DNS);
    const policy = { allowPrivate: false, resolve };
    for (const host of [
      ...INTERNAL_HOSTS,
      '127.0.0.1.nip.io',
      'rebind.example',
      'metadata.example',
      'mixed.example',
    ]) {
      const hostname = new URL(`http://${host}:5432/x`).hostname.replace(/^\[|\]$/g, '');
      await expect(checkedAddresses(hostname, policy), host).rejects.toBeInstanceOf(
        RefusedDestination,
      );
    }
    // localhost is this machine whatever a resolver says: never asked.
    expect(resolve.calls).not.toContain('localhost');
    expect(await checkedAddresses('public.example', policy)).toHaveLength(2);
    expect(await checkedAddresses('93.184.215.14', policy)).toEqual([
      { address: '93.184.215.14', family: 4 },
    ]);
    // WEBHOOK_ALLOW_PRIVATE: the same names pass.
    expect(await checkedAddresses('rebind.example', { allowPrivate: true, resolve })).toEqual([
      { address: '127.0.0.1', family: 4 },
    ]);
  });

  it('refuses them at creation, through the merchant API and the operator CLI, storing nothing', async () => {
    const scene = await stack.scene('1:S');
    const api = client(stack.url, scene.org.apiKey);
    const port = new URL(hook.url).port;
    for (const host of [...INTERNAL_HOSTS, `127.0.0.1:${port}`, '127.0.0.1:5432']) {
      const url = `http://${host}/hooks?x=1`;
      const answer = await api.post('/api/v1/webhooks', { url });
      expect(answer.status, url).toBe(422);
      expect(answer.body.errors, url).toEqual([
        {
          field: 'url',
          code: 'refused_address',
          message: expect.stringMatching(/^must point to a public address/),
        },
      ]);
      // The same words whatever the address: nothing about what is there.
      expect(answer.body.errors[0].message).not.toContain(host);
    }
    expect((await api.get('/api/v1/webhooks')).body.data).toEqual([]);

    const env = { ...process.env, DATABASE_URL: stack.databaseUrl, WEBHOOK_ALLOW_PRIVATE: '' };
    let err = '';
    const refused = await runAdmin(
      ['org', 'set-webhook', '--org', scene.org.id, '--url', 'http://2130706433:5432/'],
      { out: () => {}, err: (t) => (err += t), env },
    );
    expect(refused).toBe(1);
    expect(err).toMatch(/^error: --url must point to a public address/);
    const [none] = await stack.sql<{ n: number }[]>`
      select count(*)::int as n from webhook_endpoints where organization_id = ${scene.org.id}`;
    expect(none!.n).toBe(0);

    // A public address, and a name that does not resolve yet, are taken.
    for (const url of ['https://93.184.215.14/hooks', 'https://shop.example/hooks/locker']) {
      expect((await api.post('/api/v1/webhooks', { url })).status, url).toBe(201);
    }
    // With the development setting the loopback receiver is taken too.
    let out = '';
    expect(
      await runAdmin(['org', 'set-webhook', '--org', scene.org.id, '--url', hook.url], {
        out: (t) => (out += t),
        err: () => {},
        env: { ...env, WEBHOOK_ALLOW_PRIVATE: 'true' },
      }),
    ).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ webhookUrl: hook.url });
  });

  it('refuses them at delivery after resolving the name, and connects only to the address it checked', async () => {
    const port = new URL(hook.url).port;
    const message: OutboxMessage<QueuedWebhook> = {
      id: '1',
      organization_id: null,
      shipment_id: null,
      attempts: 1,
      payload: { event_id: 'e', endpoint_id: 'w', type: 'shipment.collected' },
    };
    const target = (url: string) =>
      new Map([
        [
          'w e',
          {
            url,
            secret: 'whsec_dGVzdA==',
            secret_key_id: null,
            previous_secret: null,
            previous_secret_key_id: null,
            disabled_at: null,
            body: '{}',
          },
        ],
      ]);
    const resolve = fakeDns({ ...DNS, 'hooks.shop.test': ['127.0.0.1'] });
    const strict = webhookChannel(stack.sql, {
      destination: { allowPrivate: false, resolve },
      keyring: DEVELOPMENT_KEYRING,
    });
    const before = hook.attempts();
    for (const host of [
      ...INTERNAL_HOSTS.map((h) => `${h}:${port}`),
      `127.0.0.1.nip.io:${port}`,
      `rebind.example:${port}`,
    ]) {
      const delivery = strict.deliver(message, target(`http://${host}/hooks`));
      await expect(delivery, host).rejects.toBeInstanceOf(DeliveryError);
      await expect(delivery, host).rejects.toThrow(/^address refused: /);
    }
    expect(hook.attempts()).toBe(before);

    // Allowed, a name only the injected resolver knows reaches the receiver on the
    // address it answered: the socket took that answer, with one resolution per delivery.
    hook.state.answer = { status: 204 };
    try {
      const local = webhookChannel(stack.sql, {
        destination: { allowPrivate: true, resolve },
        keyring: DEVELOPMENT_KEYRING,
      });
      resolve.calls.length = 0;
      await local.deliver(message, target(`http://hooks.shop.test:${port}/hooks`));
      expect(hook.attempts()).toBe(before + 1);
      expect(resolve.calls).toEqual(['hooks.shop.test']);
    } finally {
      hook.state.answer = { status: 410 };
    }
  });

  it('an endpoint stored before the rule (or allowed then) gets nothing; its 410 never reaches the merchant', async () => {
    const scene = await stack.scene('1:S');
    const api = client(stack.url, scene.org.apiKey);
    await stack.sql`
      insert into webhook_endpoints (organization_id, url, secret)
      values (${scene.org.id}, ${hook.url}, 'whsec_dGVzdA==')`;
    const before = hook.attempts();
    const { shipment } = await scene.deposit();
    const [row] = await waitFor(async () => {
      const rows = await stack.sql<{ last_error: string | null; failed_at: Date | null }[]>`
        select last_error, failed_at from outbox
         where channel = 'webhook' and shipment_id = ${shipment.id}`;
      return rows[0]?.last_error ? rows : undefined;
    });
    expect(row!.last_error).toMatch(/^address refused: 127\.0\.0\.1 is loopback$/);
    expect(row!.failed_at).toBeNull();
    expect(hook.attempts()).toBe(before);
    // What the merchant sees of it: an endpoint like any other, not disabled by a 410.
    expect((await api.get('/api/v1/webhooks')).body.data).toEqual([
      expect.objectContaining({ url: hook.url, status: 'enabled', disabled_reason: null }),
    ]);
  });
});
