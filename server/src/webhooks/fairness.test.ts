import { describe, expect, it } from 'vitest';
import { setOrganizationWebhook } from '../admin/commands';
import { client, useTestServer, waitFor } from '../../test/harness';
import { useWebhookReceiver } from '../../test/receiver';
import { queueDeliveries } from './events';

const stack = useTestServer();
// Closed before the server (hooks run in reverse), so no delivery is left hanging on them.
const tarpit = useWebhookReceiver();
const victim = useWebhookReceiver();
const local = () => ({ allowPrivate: true, keyring: stack.server.config.webhookSecretKeys });

describe('webhook delivery is fair across endpoints', () => {
  it('another organization’s webhook arrives in under a second while ten endpoints hang on 150 redeliveries', async () => {
    tarpit.state.answer = 'hang';
    // The attacker: ten endpoints that accept the connection and never answer.
    const attacker = await stack.scene('1:S');
    for (let i = 0; i < 10; i++)
      await setOrganizationWebhook(stack.sql, attacker.org.id, `${tarpit.url}/${i}`, local());
    const { shipment } = await attacker.deposit();
    const [event] = await stack.sql<{ id: string }[]>`
      select id from events where shipment_id = ${shipment.id}`;
    const api = client(stack.url, attacker.org.apiKey);
    const answers = await Promise.all(
      Array.from({ length: 150 }, () => api.post(`/api/v1/events/${event!.id}/redeliver`)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s !== 202 && s !== 429)).toEqual([]);
    // What the caps let through is topped up to the backlog, as if every call had
    // been taken: 150 redeliveries to ten endpoints, each one hanging.
    const taken = statuses.filter((s) => s === 202).length;
    for (let i = taken; i < 150; i++)
      await queueDeliveries(stack.sql, attacker.org.id, event!.id, 'shipment.ready_for_pickup');
    // Every hanging endpoint holds deliveries open before the other organization starts.
    await waitFor(() => (tarpit.attempts() >= 10 ? true : undefined));

    // Meanwhile, another organization's parcels: each webhook within a second.
    const other = await stack.scene('1:S,2:S,3:S,4:S,5:S');
    await setOrganizationWebhook(stack.sql, other.org.id, victim.url, local());
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const { shipment: parcel } = await other.deposit();
      const [delivery] = await waitFor(() => {
        const mine = victim.eventsOf(parcel.id);
        return mine.length ? mine : undefined;
      }, 5000);
      delays.push(delivery!.at - started);
    }
    expect(Math.max(...delays), `delays ${delays.join(', ')} ms`).toBeLessThan(1000);
  });
});
