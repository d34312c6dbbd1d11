import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { useTestServer, waitFor } from '../../test/harness';
import { requestLog } from '../http/requestLog';
import type { Logger } from '../logger';

const stack = useTestServer({ publicUrl: 'https://parcels.example' });

/** The pickup SMS sent to `phone`, once delivered: its code and its page's address. */
async function smsTo(phone: string) {
  const text = await waitFor(() => stack.sentSms().find((m) => m.to === phone)?.text);
  const link = /https:\/\/parcels\.example(\/p\/[A-Za-z0-9]{16})\b/.exec(text)!;
  return { text, code: /\b(\d{8})\b/.exec(text)![1]!, path: link[1]!, token: link[1]!.slice(3) };
}

describe("the recipient's page", () => {
  it('shows the locker, until when, the door size and the code as a QR, in their language, with no login', async () => {
    const scene = await stack.scene('1:S,2:M', { freeStorageHours: 48 });
    const { shipment } = await scene.deposit({ size: 'M', language: 'sq', name: 'Drita Gashi' });
    const sms = await smsTo(shipment.recipient_phone);
    expect(sms.text).toContain(`Kodi QR: https://parcels.example${sms.path}`);

    const page = await stack.anonymous.get(sms.path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.text).toContain('<html lang="sq">');
    expect(page.text).toContain('Pakoja juaj ju pret');
    expect(page.text).toContain('Përshëndetje Drita');
    expect(page.text).not.toContain('Gashi');
    expect(page.text).toContain(`Test Station (${scene.station.code})`);
    expect(page.text).toContain('e mesme (M)');
    expect(page.text).toContain(`${sms.code.slice(0, 4)} ${sms.code.slice(4)}`);
    expect(page.text).toMatch(/<svg[^>]*viewBox/);

    // The database holds neither the link nor the code in the clear.
    const [row] = await stack.sql<{ recipient_link_hash: Buffer; pickup_code_sealed: Buffer }[]>`
      select recipient_link_hash, pickup_code_sealed from shipments where id = ${shipment.id}`;
    expect(row!.recipient_link_hash.toString('latin1')).not.toContain(sms.token);
    expect(row!.pickup_code_sealed.toString('latin1')).not.toContain(sms.code);

    // A guessed or altered link finds nothing, and says so in every language.
    // (Its last character changed: to 'X', or to 'Y' when it was an 'X', one time in 64.)
    const last = sms.token.at(-1) === 'X' ? 'Y' : 'X';
    const wrong = await stack.anonymous.get(`/p/${sms.token.slice(0, -1)}${last}`);
    expect(wrong.status).toBe(404);
    expect(wrong.text).toContain('This link is no longer valid');
    expect(wrong.text).not.toContain(sms.code);
  });

  it('dies with the parcel: once collected the link shows nothing', async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit({ language: 'tr' });
    const sms = await smsTo(shipment.recipient_phone);
    expect((await stack.anonymous.get(sms.path)).status).toBe(200);
    const picked = await scene.terminal.api.post('/terminal/v1/pickup', { code: sms.code });
    await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: picked.body.shipmentId,
      collected: true,
    });
    const gone = await stack.anonymous.get(sms.path);
    expect(gone.status).toBe(404);
    expect(gone.text).toContain('Bu bağlantı artık geçerli değil');
    const [row] = await stack.sql`
      select recipient_link_hash, pickup_code_sealed from shipments where id = ${shipment.id}`;
    expect(row).toEqual({ recipient_link_hash: null, pickup_code_sealed: null });
  });

  it('is never logged with its token', async () => {
    const lines: object[] = [];
    const logger = {
      child: () => ({ info: (fields: object) => lines.push(fields) }),
    } as unknown as Logger;
    const app = new Koa();
    app.use(requestLog(logger));
    app.use((ctx) => {
      ctx.body = 'ok';
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as { port: number };
    await fetch(`http://127.0.0.1:${port}/p/AbCdEfGhIjKlMnOp`);
    server.close();
    expect(JSON.stringify(lines)).not.toContain('AbCdEfGhIjKlMnOp');
    expect(lines).toContainEqual(expect.objectContaining({ path: '/p/…' }));
  });
});
