import type { Language } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { setStationBooking } from '../admin/placeCommands';
import { sendStorageNotices } from '../notices/storage';
import { useTestServer, waitFor } from '../../test/harness';
import { RECIPIENT_PAGE_LIMIT } from './rateLimit';

// The recipient takes their parcel's one storage extension from their own page (issue 27):
// a plain form post, against the real server and PostgreSQL. The storage sweep stays out
// of the way: the reminder test runs it when it means to.
const stack = useTestServer({ publicUrl: 'https://parcels.example', sweepIntervalMs: 3_600_000 });

const depositedAgo = (id: string, hours: number) =>
  stack.sql`update shipments set deposited_at = now() - make_interval(hours => ${hours}) where id = ${id}`;

async function scene() {
  return stack.scene('1:S,2:S,3:S,4:S', {
    freeStorageHours: 48,
    maxStorageHours: 96,
    freeStorageReminderHours: 24,
    expiryReminderHours: 12,
    supportPhone: '+383 38 200 200',
  });
}

/** The page's path from the pickup SMS sent to `phone`. */
async function pathFor(phone: string): Promise<string> {
  const text = await waitFor(() => stack.sentSms().find((m) => m.to === phone)?.text);
  return /https:\/\/parcels\.example(\/p\/[A-Za-z0-9]{16})\b/.exec(text)![1]!;
}

/** What the browser sends when the page's own button is pressed (no-referrer: Origin null). */
const FROM_THE_PAGE = {
  'content-type': 'application/x-www-form-urlencoded',
  origin: 'null',
  'sec-fetch-site': 'same-origin',
};

/** A form post, redirects not followed. */
async function submit(path: string, headers: Record<string, string> = FROM_THE_PAGE) {
  const response = await fetch(`${stack.url}${path}/extend`, {
    method: 'POST',
    headers,
    body: '',
    redirect: 'manual',
  });
  return {
    status: response.status,
    location: response.headers.get('location'),
    text: await response.text(),
  };
}

async function storageOf(id: string) {
  const [row] = await stack.sql<{ extended: number; collect_by: Date; events: number }[]>`
    select sh.storage_extended_hours as extended,
           sh.deposited_at + make_interval(hours => s.max_storage_hours + sh.storage_extended_hours) as collect_by,
           (select count(*)::int from events e
             where e.shipment_id = sh.id and e.type = 'shipment.storage_extended') as events
      from shipments sh join stations s on s.id = sh.destination_station_id
     where sh.id = ${id}`;
  return row!;
}

const longDate = (language: Language, at: Date) =>
  new Intl.DateTimeFormat(language, { dateStyle: 'full', timeStyle: 'short' }).format(at);

describe("the recipient's storage extension", () => {
  it('extends once from the page’s form; a second post changes nothing and shows the same page', async () => {
    const s = await scene();
    const { shipment } = await s.deposit({ language: 'en' });
    const path = await pathFor(shipment.recipient_phone);

    const before = await stack.anonymous.get(path);
    expect(before.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(before.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(before.text).not.toContain('<script');
    const was = await storageOf(shipment.id);
    expect(before.text).toContain(`<dt>Collect by</dt><dd>${longDate('en', was.collect_by)}</dd>`);
    expect(before.text).toContain(`<form class="extend" method="post" action="${path}/extend">`);
    expect(before.text).toContain('Keep it 48 hours longer</button>');

    const first = await submit(path);
    expect(first.status).toBe(303);
    expect(first.location).toBe(path);
    const now = await storageOf(shipment.id);
    expect(now.extended).toBe(48);
    expect(now.collect_by.getTime() - was.collect_by.getTime()).toBe(48 * 3_600_000);
    // The merchant hears of it as of a merchant's or an operator's extension.
    expect(await stack.webhookTypesOf(shipment.id)).toEqual([
      'shipment.ready_for_pickup',
      'shipment.storage_extended',
    ]);

    const after = await stack.anonymous.get(path);
    expect(after.status).toBe(200);
    expect(after.text).toContain(`<dt>Collect by</dt><dd>${longDate('en', now.collect_by)}</dd>`);
    expect(after.text).toContain(
      'Your parcel is kept 48 hours longer. It cannot be extended again.',
    );
    expect(after.text).not.toContain('<form');

    // Double tap, back button: the same answer, nothing changed, no second event.
    const second = await submit(path);
    expect(second).toEqual(first);
    expect(await storageOf(shipment.id)).toEqual(now);
    expect((await stack.anonymous.get(path)).text).toBe(after.text);
  });

  it('holds under two posts at once: one extension, one event', async () => {
    const s = await scene();
    const { shipment } = await s.deposit();
    const path = await pathFor(shipment.recipient_phone);
    const answers = await Promise.all([submit(path), submit(path), submit(path)]);
    expect(answers.map((a) => a.status)).toEqual([303, 303, 303]);
    expect(await storageOf(shipment.id)).toMatchObject({ extended: 48, events: 1 });
  });

  it('is offered in the recipient’s language', async () => {
    const s = await scene();
    const buttons: Record<Language, string> = {
      en: 'Keep it 48 hours longer',
      sq: 'Mbajeni 48 orë më gjatë',
      sr: 'Čuvajte ga još 48 sati',
      tr: '48 saat daha saklayın',
    };
    const done: Record<Language, string> = {
      en: 'It cannot be extended again.',
      sq: 'Nuk mund të zgjatet më.',
      sr: 'Čuvanje se ne može ponovo produžiti.',
      tr: 'Süre tekrar uzatılamaz.',
    };
    for (const language of ['en', 'sq', 'sr', 'tr'] as const) {
      const { shipment } = await s.deposit({ language });
      const path = await pathFor(shipment.recipient_phone);
      const page = (await stack.anonymous.get(path)).text;
      expect(page).toContain(`${buttons[language]}</button>`);
      // Serbian dates in the Latin script of its texts, not Intl's default Cyrillic.
      expect(page).not.toMatch(/[\u0400-\u04FF]/);
      await submit(path);
      expect((await stack.anonymous.get(path)).text).toContain(done[language]);
    }
  });

  it('is neither offered nor granted when the station grants none, or the parcel has expired', async () => {
    const s = await scene();
    const { shipment: late } = await s.deposit();
    const latePath = await pathFor(late.recipient_phone);
    await depositedAgo(late.id, 97);
    expect((await stack.anonymous.get(latePath)).text).not.toContain('<form');
    expect((await submit(latePath)).status).toBe(303);
    expect(await storageOf(late.id)).toMatchObject({ extended: 0, events: 0 });

    await setStationBooking(stack.sql, s.station.code, { extensionHours: null });
    const { shipment } = await s.deposit();
    const path = await pathFor(shipment.recipient_phone);
    const page = await stack.anonymous.get(path);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<form');
    expect(page.text).not.toContain('longer');
    expect((await submit(path)).location).toBe(path);
    expect(await storageOf(shipment.id)).toMatchObject({ extended: 0, events: 0 });
    expect((await stack.anonymous.get(path)).text).toBe(page.text);
  });

  it('after collection, and for any unknown token, answers as the unknown page does', async () => {
    const s = await scene();
    const { shipment } = await s.deposit();
    const path = await pathFor(shipment.recipient_phone);
    const code = /\b(\d{8})\b/.exec(
      stack.sentSms().find((m) => m.to === shipment.recipient_phone)!.text,
    )![1]!;
    const picked = await s.terminal.api.post('/terminal/v1/pickup', { code });
    await s.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: picked.body.shipmentId,
      collected: true,
    });
    const unknownPage = await stack.anonymous.get('/p/AbCdEfGhIjKlMnOp');
    expect(unknownPage.status).toBe(404);
    for (const answer of [
      await submit(path),
      await submit('/p/AbCdEfGhIjKlMnOp'),
      await submit('/p/short'),
    ]) {
      expect(answer.status).toBe(404);
      expect(answer.text).toBe(unknownPage.text);
    }
    expect(await storageOf(shipment.id)).toMatchObject({ extended: 0, events: 0 });
  });

  it('refuses a post from another site, changing nothing', async () => {
    const s = await scene();
    const { shipment } = await s.deposit();
    const path = await pathFor(shipment.recipient_phone);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    for (const headers of [
      { ...form, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      { ...form, 'sec-fetch-site': 'same-site', origin: 'https://shop.parcels.example' },
      { ...form, 'sec-fetch-site': 'cross-site', origin: 'null' },
      // A browser without Fetch Metadata: the Origin decides.
      { ...form, origin: 'https://evil.example' },
    ]) {
      const answer = await submit(path, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.text).toContain('This request came from another site and was refused.');
    }
    expect(await storageOf(shipment.id)).toMatchObject({ extended: 0, events: 0 });
    // This service's own origin, named by PUBLIC_URL, passes.
    const own = await submit(path, { ...form, origin: 'https://parcels.example' });
    expect(own.status).toBe(303);
    expect(await storageOf(shipment.id)).toMatchObject({ extended: 48, events: 1 });
  });

  it('is pointed to by the reminder SMS while available, which never carries the link', async () => {
    const s = await scene();
    const { shipment } = await s.deposit({ language: 'en', name: 'Drita Gashi' });
    const path = await pathFor(shipment.recipient_phone);
    await depositedAgo(shipment.id, 25);
    expect(await sendStorageNotices(stack.sql, shipment.id)).toBe(1);
    const reminder = await waitFor(() =>
      stack
        .sentSms()
        .find((m) => m.to === shipment.recipient_phone && m.text.includes('free storage')),
    );
    expect(reminder.text).toMatch(
      / Need more time\? Open the link in the SMS with your code to keep it 48 h longer \(once\), or call \+383 38 200 200\.$/,
    );
    expect(reminder.text).not.toContain(path);
    expect(reminder.text).not.toMatch(/\/p\//);
    // Taken on the page: the next reminder no longer offers it.
    await submit(path);
    await depositedAgo(shipment.id, 73);
    expect(await sendStorageNotices(stack.sql, shipment.id)).toBe(1);
    const second = await waitFor(() => {
      const texts = stack
        .sentSms()
        .filter((m) => m.to === shipment.recipient_phone && m.text.includes('free storage'));
      return texts.length === 2 ? texts[1] : undefined;
    });
    expect(second.text).not.toMatch(/Need more time/);
  });

  // Last: it spends this file's one client address's window.
  it('is rate-limited per client address, the page and the form alike', async () => {
    const s = await scene();
    const { shipment } = await s.deposit();
    const path = await pathFor(shipment.recipient_phone);
    await stack.sql`delete from rate_limit_windows where bucket = 'recipient_page'`;
    for (let i = 0; i < RECIPIENT_PAGE_LIMIT.limit; i++) {
      expect((await stack.anonymous.get(path)).status).toBe(200);
    }
    const page = await stack.anonymous.get(path);
    expect(page.status).toBe(429);
    expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(page.text).toContain('Too many requests from your network.');
    expect((await submit(path)).status).toBe(429);
    expect(await storageOf(shipment.id)).toMatchObject({ extended: 0, events: 0 });
  });
});
