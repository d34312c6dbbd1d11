import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { runAdmin } from '../admin/run';
import { ConfigError, loadConfig } from '../config';
import { startServer } from '../server';
import { client, useTestServer, waitFor } from '../../test/harness';
import { useWebhookReceiver } from '../../test/receiver';
import { newWebhookSecret } from './signature';
import { openSecret, sealSecret, UnknownSecretKey, type Keyring } from './secretKeys';

const key = (id: string) => ({ id, key: randomBytes(32) });
const k1 = key('k1');
const k2 = key('k2');
const env = (keys: Keyring) => keys.map((k) => `${k.id}:${k.key.toString('base64')}`).join(',');

const stack = useTestServer({ webhookSecretKeys: [k1] });
const hook = useWebhookReceiver();

/** Every column of every endpoint, as a dump would hold them. */
async function dump(): Promise<string> {
  const rows = await stack.sql<{ row: string }[]>`select t::text as row from webhook_endpoints t`;
  return rows.map((r) => r.row).join('\n');
}

/** What a secret could be found as in a dump: as given, or its key bytes in base64. */
const traces = (secret: string) => [secret, secret.slice('whsec_'.length)];

interface Stored {
  id: string;
  secret: string;
  secret_key_id: string | null;
  previous_secret: string | null;
  previous_secret_key_id: string | null;
}
const stored = async (id: string) =>
  (
    await stack.sql<Stored[]>`
      select id, secret, secret_key_id, previous_secret, previous_secret_key_id
        from webhook_endpoints where id = ${id}`
  )[0]!;

describe('webhook secrets at rest', () => {
  it('are AES-256-GCM, bound to their endpoint, under the key named beside them', () => {
    const secret = newWebhookSecret();
    const sealed = sealSecret([k1, k2], 'endpoint-a', secret);
    expect(sealed.keyId).toBe('k1');
    expect(Buffer.from(sealed.ciphertext, 'base64')).toHaveLength(12 + 16 + secret.length);
    expect(openSecret([k2, k1], 'endpoint-a', sealed)).toBe(secret);
    // Copied onto another endpoint, or tampered with, it does not open.
    expect(() => openSecret([k1], 'endpoint-b', sealed)).toThrow();
    const bytes = Buffer.from(sealed.ciphertext, 'base64');
    bytes[bytes.length - 1]! ^= 1;
    expect(() =>
      openSecret([k1], 'endpoint-a', { ...sealed, ciphertext: bytes.toString('base64') }),
    ).toThrow();
    expect(() => openSecret([k2], 'endpoint-a', sealed)).toThrow(UnknownSecretKey);
    // One stored in clear (before migration 012) is read as it is.
    expect(openSecret([k1], 'endpoint-a', { ciphertext: secret, keyId: null })).toBe(secret);
  });

  it('are never stored in clear: created, rotated, delivered with', async () => {
    const scene = await stack.scene('1:S');
    const api = client(stack.url, scene.org.apiKey);
    const created = await api.post('/api/v1/webhooks', { url: hook.url });
    expect(created.status).toBe(201);
    const rotated = await api.post(`/api/v1/webhooks/${created.body.id}/rotate-secret`, {
      rollover_hours: 24,
    });
    expect(rotated.status).toBe(200);
    const secrets = [created.body.secret as string, rotated.body.secret as string];
    const everything = await dump();
    for (const secret of secrets)
      for (const trace of traces(secret)) expect(everything).not.toContain(trace);
    expect(everything).not.toContain('whsec_');
    expect(await stored(created.body.id)).toMatchObject({
      secret_key_id: 'k1',
      previous_secret_key_id: 'k1',
    });
    // The deliveries are still signed with both, as the merchant holds them.
    const { shipment } = await scene.deposit();
    const [delivery] = await waitFor(() => {
      const mine = hook.eventsOf(shipment.id);
      return mine.length ? mine : undefined;
    });
    for (const secret of secrets)
      expect(new Webhook(secret).verify(delivery!.raw, delivery!.headers)).toBeTruthy();
  });

  it('stored in clear before are encrypted when a server starts; the key rotates with the CLI; a key in use is never dropped', async () => {
    const scene = await stack.scene('1:S');
    const legacy = newWebhookSecret();
    const [row] = await stack.sql<{ id: string }[]>`
      insert into webhook_endpoints (organization_id, url, secret)
      values (${scene.org.id}, ${hook.url}, ${legacy}) returning id`;
    const options = {
      port: 0,
      host: '127.0.0.1',
      databaseUrl: stack.databaseUrl,
      logLevel: 'silent',
      smsTransport: 'file:/dev/null',
      webhookSecretKeys: [k1],
      development: true,
    };
    const second = await startServer(options);
    await second.close();
    const sealed = await stored(row!.id);
    expect(sealed.secret_key_id).toBe('k1');
    for (const trace of traces(legacy)) expect(await dump()).not.toContain(trace);
    expect(openSecret([k1], row!.id, { ciphertext: sealed.secret, keyId: 'k1' })).toBe(legacy);

    // A new first key; the old one stays listed until every secret is under the new one.
    const io = (keys: Keyring) => {
      const out = { stdout: '', stderr: '' };
      return {
        out,
        io: {
          out: (t: string) => (out.stdout += t),
          err: (t: string) => (out.stderr += t),
          env: { ...process.env, DATABASE_URL: stack.databaseUrl, WEBHOOK_SECRET_KEYS: env(keys) },
        },
      };
    };
    const without = io([k2]);
    expect(await runAdmin(['webhooks', 'rotate-key'], without.io)).toBe(1);
    expect(without.out.stderr).toMatch(/WEBHOOK_SECRET_KEYS must list the key "k1" too/);
    const both = io([k2, k1]);
    expect(await runAdmin(['webhooks', 'rotate-key'], both.io)).toBe(0);
    const answer = JSON.parse(both.out.stdout) as { keyId: string; reencrypted: number };
    expect(answer.keyId).toBe('k2');
    expect(answer.reencrypted).toBeGreaterThanOrEqual(2);
    const [left] = await stack.sql<{ n: number }[]>`
      select count(*)::int as n from webhook_endpoints
       where secret_key_id is distinct from 'k2'
          or (previous_secret is not null and previous_secret_key_id is distinct from 'k2')`;
    expect(left!.n).toBe(0);
    const moved = await stored(row!.id);
    expect(
      openSecret([k2], row!.id, { ciphertext: moved.secret, keyId: moved.secret_key_id }),
    ).toBe(legacy);
    // Now k1 can go; a server without k2 would not start.
    await expect(startServer({ ...options, webhookSecretKeys: [k1] })).rejects.toThrow(
      new ConfigError(
        'bad setting: WEBHOOK_SECRET_KEYS must still list the key "k2": webhook secrets are encrypted with it (keep it after the new first key until `pnpm admin webhooks rotate-key` has run)',
      ),
    );
    const third = await startServer({ ...options, webhookSecretKeys: [k2] });
    await third.close();
  });

  it('WEBHOOK_SECRET_KEYS: ID:KEY pairs, the first encrypting; required in production', () => {
    const read = loadConfig({ WEBHOOK_SECRET_KEYS: env([k2, k1]) }).webhookSecretKeys;
    expect(read.map((k) => k.id)).toEqual(['k2', 'k1']);
    expect(read[0]!.key.equals(k2.key)).toBe(true);
    expect(loadConfig({}).webhookSecretKeys.map((k) => k.id)).toEqual(['dev']);
    for (const bad of [
      'k1',
      'k1:short',
      `k1:${k1.key.toString('base64')},k1:${k2.key.toString('base64')}`,
    ]) {
      expect(() => loadConfig({ WEBHOOK_SECRET_KEYS: bad }), bad).toThrow(
        /^bad setting: WEBHOOK_SECRET_KEYS must be ID:KEY\[,ID:KEY…\] \(the first encrypts\)/,
      );
    }
    // The value itself is never echoed.
    expect(() => loadConfig({ WEBHOOK_SECRET_KEYS: 'k1:short' })).not.toThrow(/short/);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      /WEBHOOK_SECRET_KEYS must be set with NODE_ENV=production/,
    );
  });
});
