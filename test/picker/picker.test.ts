import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import axe from 'axe-core';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REPO_ROOT,
  client,
  createStation,
  setDoorHeights,
  setStationPlace,
  useTestServer,
} from '@locker/server/testing';
import { launchBrowser } from '../browser';
import { forTheReadme, screenFile } from '../screenshots';

// The locker picker (<locker-picker>, issue 27) on a shop's checkout page, as
// docs/merchant-api.md prints it: the page's HTML, its checkout.js and the shop's proxy,
// each the block as written, against the real server and the real finder, in Chromium,
// under a strict Content-Security-Policy with Trusted Types.

/** The picker's photograph for the README (test/screenshots.ts). */
async function shot(locator: Locator, name: string): Promise<void> {
  const file = screenFile(name);
  await locator.screenshot({ path: file });
  forTheReadme(file);
}
const HEADING = 'The locker picker on a checkout page';
const NEAR = '42.6629,21.1655';
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as FunctionConstructor;

function docBlocks(): { lang: string; code: string }[] {
  const lines = readFileSync(path.join(REPO_ROOT, 'docs/merchant-api.md'), 'utf8').split('\n');
  const found: { lang: string; code: string }[] = [];
  let heading = '';
  let open: { lang: string; body: string[] } | undefined;
  for (const text of lines) {
    const fence = /^```(\w*)\s*$/.exec(text);
    if (fence && !open) open = { lang: fence[1]!, body: [] };
    else if (fence && open) {
      if (heading === HEADING) found.push({ lang: open.lang, code: open.body.join('\n') });
      open = undefined;
    } else if (open) open.body.push(text);
    else if (/^#{1,6} /.test(text)) heading = text.replace(/^#+ /, '');
  }
  return found;
}

const stack = useTestServer();
let browser: Browser;
let shop: http.Server;
let shopUrl: string;
let apiKey: string;
/** A proxy answering 502 (the finder unreachable) until `mended`. */
const BROKEN = '/broken/lockers';
let mended = false;

beforeAll(async () => {
  const org = await stack.org();
  apiKey = org.apiKey;
  let prizrenId = '';
  const locate = async (
    code: string,
    name: string,
    doors: string,
    heights: string,
    place: Parameters<typeof setStationPlace>[2],
  ) => {
    const station = await createStation(stack.sql, { code, name, doors });
    if (code === 'PZ01') prizrenId = station.id;
    await setStationPlace(stack.sql, code, place);
    if (heights) await setDoorHeights(stack.sql, code, heights);
  };
  await locate(
    'PR01',
    'Prishtina Center',
    '1:S,2:S,3:S,4:M,5:L,6:XL',
    '1:1000,2:1650,3:1650,4:900,5:1650,6:1650',
    {
      address: 'Rruga Agim Ramadani 15, 10000 Prishtinë',
      coordinates: '42.6661,21.1678',
      hours: 'mo-fr 08:00-20:00; sa 09:00-14:00',
      stepFree: 'yes',
    },
  );
  await locate('PR07', 'Prishtina Dardania', '1:M,2:M,3:L', '1:1000,2:1650,3:1650', {
    address: 'Rruga Pashko Vasa 20, 10000 Prishtinë',
    coordinates: '42.6552,21.1530',
    hours: '24/7',
    stepFree: 'no',
  });
  await locate('PR06', 'Prishtina Ulpiana', '1:S,2:M', '1:1650,2:1650', {
    coordinates: '42.6470,21.1620',
  });
  await locate('PZ01', 'Prizren Shadërvan', '1:S', '', {
    address: 'Sheshi Shadërvan 1, 20000 Prizren',
    coordinates: '42.2139,20.7397',
  });
  // Its one door held by a booking: full.
  const held = await client(stack.url, apiKey).post('/api/v1/shipments', {
    destination_station_id: prizrenId,
    parcel_size: 'S',
    recipient_name: 'Drita Gashi',
    recipient_phone: '+38344123456',
    recipient_language: 'sq',
    reserve_door: true,
  });
  if (held.status !== 201) throw new Error(`booking answered ${held.status}: ${held.text}`);

  const blocks = docBlocks();
  const [html, checkout, proxy] = [
    blocks.find((b) => b.lang === 'html')!,
    blocks.filter((b) => b.lang === 'js')[0]!,
    blocks.filter((b) => b.lang === 'js')[1]!,
  ];
  // The shop's proxy, as written; LOCKER_API and the key are the shop's settings.
  const lockers = (await new AsyncFunction(
    'LOCKER_API',
    'process',
    `${proxy.code.replace('export async function', 'async function')}\nreturn lockers;`,
  )(stack.url, { env: { LOCKER_API_KEY: apiKey } })) as http.RequestListener;

  shop = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://shop.invalid');
    if (url.pathname === '/checkout/lockers') return void lockers(req, res);
    if (url.pathname === BROKEN)
      return void (mended ? lockers(req, res) : res.writeHead(502).end('Bad gateway'));
    if (url.pathname === '/checkout.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return void res.end(checkout.code);
    }
    if (url.pathname !== '/checkout') return void res.writeHead(404).end();
    // The page's own lang, and the picker's (`none`: no attribute, the page's applies).
    const pageLang = url.searchParams.get('page') ?? 'en';
    const pickerLang = url.searchParams.get('lang') ?? 'sq';
    let embed = html.code.replaceAll('http://localhost:8080', stack.url);
    for (const attribute of ['near', 'size', 'endpoint'] as const) {
      const value = url.searchParams.get(attribute);
      if (value !== null)
        embed = embed.replace(new RegExp(`${attribute}="[^"]*"`), `${attribute}="${value}"`);
    }
    embed =
      pickerLang === 'none'
        ? embed.replace(' lang="sq"', '')
        : embed.replace('lang="sq"', `lang="${pickerLang}"`);
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': [
        "default-src 'none'",
        `script-src 'self' ${stack.url}`,
        "connect-src 'self'",
        "style-src 'self'",
        "require-trusted-types-for 'script'",
        "base-uri 'none'",
      ].join('; '),
    });
    res.end(`<!doctype html>
<html lang="${pageLang}">
<head><meta charset="utf-8"><title>Checkout</title></head>
<body><main><h1>Checkout</h1>
${embed}
</main></body></html>`);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => shop?.close(resolve));
});

interface Opened {
  page: Page;
  violations: string[];
  events: () => Promise<unknown[]>;
}

/** The checkout page with `query`, its CSP violations and `locker-selected` events kept. */
async function checkout(query: Record<string, string> = {}): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 720, height: 900 } });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content[- ]Security[- ]Policy|Trusted Type/i.test(m.text())) violations.push(m.text());
  });
  await page.addInitScript(() => {
    const w = window as unknown as { picked: unknown[] };
    w.picked = [];
    document.addEventListener('locker-selected', (e) => w.picked.push((e as CustomEvent).detail));
  });
  await page.goto(`${shopUrl}/checkout?${new URLSearchParams(query)}`);
  return {
    page,
    violations,
    events: () => page.evaluate(() => (window as unknown as { picked: unknown[] }).picked),
  };
}

const options = (page: Page) => page.getByRole('option');
const status = (page: Page) => page.getByRole('status');

async function checkAxe(page: Page, what: string): Promise<void> {
  await page.evaluate(axe.source);
  const result = await page.evaluate(() =>
    (window as unknown as { axe: typeof axe }).axe.run(document, {
      runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'],
    }),
  );
  expect(
    result.violations.map(
      (v) => `${what}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    ),
  ).toEqual([]);
}

describe('the locker picker', () => {
  it('is served cacheable, to any origin, and revalidates with its ETag', async () => {
    const first = await fetch(`${stack.url}/picker/v1/locker-picker.js`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(first.headers.get('cache-control')).toMatch(/^public, max-age=3600/);
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    expect(first.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const body = await first.text();
    expect(body).toContain('locker-picker');
    expect(body).not.toMatch(/\bimport\b\s*[{("']/);
    // As a browser revalidates (fetch() would add Cache-Control: no-cache, refusing a 304).
    const again = await new Promise<number | undefined>((resolve, reject) =>
      http
        .get(
          `${stack.url}/picker/v1/locker-picker.js`,
          { headers: { 'if-none-match': first.headers.get('etag')! } },
          (res) => resolve(res.resume().statusCode),
        )
        .on('error', reject),
    );
    expect(again).toBe(304);
  });

  it('lists the stations a parcel fits, nearest first, with hours, step-free and free doors', async () => {
    const { page, violations } = await checkout({ lang: 'en' });
    await expect.poll(() => status(page).textContent()).toBe('3 lockers found, nearest first.');
    // The finder's own answer, through the key the browser never sees.
    const found = (await client(stack.url, apiKey).get(`/api/v1/stations?near=${NEAR}&size=M`)).body
      .data as { name: string; distance_m: number }[];
    const distances = found.map((s) => s.distance_m);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    const names = await page.locator('locker-picker .name').allTextContents();
    expect(names).toEqual(found.map((s) => s.name));
    expect(names).toEqual(['Prishtina Center', 'Prishtina Dardania', 'Prishtina Ulpiana']);

    const center = options(page).nth(0);
    await expect.poll(() => center.getAttribute('aria-selected')).toBe('false');
    const text = await center.textContent();
    expect(text).toContain('Rruga Agim Ramadani 15, 10000 Prishtinë');
    expect(text).toContain('Opening hours (local time): Mon–Fri 08:00–20:00; Sat 09:00–14:00');
    expect(text).toContain('Step-free access');
    // M, L and XL are free (an M fits all three); door 4 (M, 900 mm) within reach.
    expect(text).toContain('3 doors free for your parcel (1 within wheelchair reach)');
    const dardania = await options(page).nth(1).textContent();
    expect(dardania).toContain('open 24 hours, every day');
    expect(dardania).toContain('Steps at the entrance');
    const ulpiana = await options(page).nth(2).textContent();
    expect(ulpiana).toContain('Opening hours not given');
    expect(ulpiana).toContain('Step-free access not known');
    expect(ulpiana).toContain('1 door free for your parcel (0 within wheelchair reach)');
    // Named for a screen reader by all it shows, in reading order, its parts apart.
    await expect
      .poll(() =>
        page
          .getByRole('option', {
            name: /^Prishtina Center \d+ m away Rruga Agim Ramadani 15, 10000 Prishtinë Opening hours/,
          })
          .count(),
      )
      .toBe(1);
    await checkAxe(page, 'list');
    await shot(page.locator('main'), 'picker-en.png');
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it('is chosen with the keyboard: Tab in, arrows move, Enter or Space selects', async () => {
    const { page, events, violations } = await checkout({ lang: 'en' });
    await expect.poll(() => options(page).count()).toBe(3);
    await page.keyboard.press('Tab'); // the wheelchair filter
    await page.keyboard.press('Tab'); // the list: its first option
    const focused = () =>
      page.evaluate(() => {
        const picker = document.querySelector('locker-picker')!;
        const active = picker.shadowRoot!.activeElement;
        return active?.querySelector('.name')?.textContent ?? active?.tagName ?? null;
      });
    await expect.poll(focused).toBe('Prishtina Center');
    // The focus is visible: an outline drawn by :focus-visible.
    const outline = await page.evaluate(() => {
      const active = document.querySelector('locker-picker')!.shadowRoot!.activeElement!;
      const style = getComputedStyle(active);
      return `${style.outlineStyle} ${style.outlineWidth}`;
    });
    expect(outline).toBe('solid 3px');
    await page.keyboard.press('ArrowDown');
    await expect.poll(focused).toBe('Prishtina Dardania');
    expect(await events()).toEqual([]); // moving is not choosing
    await page.keyboard.press('Enter');
    const dardania = (await client(stack.url, apiKey).get(`/api/v1/stations?near=${NEAR}&size=M`))
      .body.data[1];
    await expect.poll(events).toEqual([
      {
        id: dardania.id,
        code: 'PR07',
        name: 'Prishtina Dardania',
        address: 'Rruga Pashko Vasa 20, 10000 Prishtinë',
      },
    ]);
    await expect.poll(() => options(page).nth(1).getAttribute('aria-selected')).toBe('true');
    await expect.poll(() => status(page).textContent()).toBe('Selected: Prishtina Dardania.');
    // The page's own checkout.js, as documented, keeps the id for the booking.
    expect(await page.locator('#locker').inputValue()).toBe(dardania.id);
    expect(await page.evaluate(() => document.querySelector<any>('locker-picker').value)).toBe(
      dardania.id,
    );

    await page.keyboard.press('End');
    await expect.poll(focused).toBe('Prishtina Ulpiana');
    await page.keyboard.press(' ');
    await expect.poll(async () => (await events()).length).toBe(2);
    expect((await events())[1]).toMatchObject({ code: 'PR06', address: null });
    expect(await options(page).nth(1).getAttribute('aria-selected')).toBe('false');
    await shot(page.locator('main'), 'picker-en-chosen.png');
    await checkAxe(page, 'chosen');
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it('speaks the four languages: its own lang, else the page’s, else English', async () => {
    const cases: { query: Record<string, string>; found: string; hours: string; free: string }[] = [
      {
        query: { lang: 'sq' },
        found: 'U gjetën 3 stacione, më i afërti i pari.',
        hours: 'Orari (ora vendore):',
        free: '3 dyer të lira për pakon tuaj',
      },
      {
        query: { lang: 'sr' },
        found: 'Pronađena su 3 paketomata, najbliži prvi.',
        hours: 'Radno vreme (lokalno vreme):',
        free: '3 slobodna vrata za vaš paket',
      },
      {
        query: { lang: 'tr' },
        found: '3 dolap bulundu, en yakını ilk sırada.',
        hours: 'Çalışma saatleri (yerel saat):',
        free: 'Kargonuz için 3 boş kapak',
      },
      {
        query: { lang: 'en' },
        found: '3 lockers found, nearest first.',
        hours: 'Opening hours (local time):',
        free: '3 doors free for your parcel',
      },
      // No lang of its own: the page's (sr-Latn-RS), then English for a language it lacks.
      {
        query: { lang: 'none', page: 'sr-Latn-RS' },
        found: 'Pronađena su 3 paketomata, najbliži prvi.',
        hours: 'Radno vreme',
        free: '3 slobodna vrata',
      },
      {
        query: { lang: 'none', page: 'de' },
        found: '3 lockers found, nearest first.',
        hours: 'Opening hours',
        free: '3 doors free',
      },
    ];
    for (const c of cases) {
      const { page, violations } = await checkout(c.query);
      await expect.poll(() => status(page).textContent()).toBe(c.found);
      const text = await options(page).nth(0).textContent();
      expect(text).toContain(c.hours);
      expect(text).toContain(c.free);
      if (c.query.lang === 'sq') {
        // Weekdays in the language (ICU's Albanian), times as the station's clock says.
        expect(text).toMatch(/Orari \(ora vendore\): Hën–Pre 08:00–20:00; Sht 09:00–14:00/);
        await shot(page.locator('main'), 'picker-sq.png');
      }
      if (c.query.lang !== 'none') {
        const lang = await page.evaluate(() =>
          document
            .querySelector('locker-picker')!
            .shadowRoot!.querySelector('.picker')!
            .getAttribute('lang'),
        );
        expect(lang).toBe(c.query.lang);
      }
      await checkAxe(page, JSON.stringify(c.query));
      expect(violations).toEqual([]);
      await page.context().close();
    }
  });

  it('says in words when no locker has room, with the wheelchair filter too', async () => {
    // Only PR01 has an XL door, none within reach.
    const { page, violations } = await checkout({ lang: 'en', size: 'XL' });
    await expect.poll(() => status(page).textContent()).toBe('1 locker found, nearest first.');
    await page.getByRole('checkbox', { name: /wheelchair reach/ }).check();
    await expect
      .poll(() => status(page).textContent())
      .toBe('No locker near this address has a free door within wheelchair reach for your parcel.');
    expect(await options(page).count()).toBe(0);
    await checkAxe(page, 'empty');
    await shot(page.locator('main'), 'picker-en-empty.png');
    // And back: the filter off lists it again.
    await page.getByRole('checkbox', { name: /wheelchair reach/ }).uncheck();
    await expect.poll(() => options(page).count()).toBe(1);
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it('lists a full station, for its distance, but does not let it be chosen', async () => {
    // No size: every station, the full one (PZ01, its one door held) last and far.
    const { page, events, violations } = await checkout({ lang: 'en', size: '' });
    await expect.poll(() => options(page).count()).toBe(4);
    const prizren = options(page).nth(3);
    expect(await prizren.textContent()).toContain('No free door for your parcel');
    expect(await prizren.getAttribute('aria-disabled')).toBe('true');
    await prizren.click({ force: true }); // Playwright would wait for it to be enabled
    await prizren.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Home');
    await page.keyboard.press(' '); // the nearest, which has room: chosen
    await expect.poll(async () => (await events()).length).toBe(1);
    expect((await events())[0]).toMatchObject({ code: 'PR01' });
    expect(await prizren.getAttribute('aria-selected')).toBe('false');
    await checkAxe(page, 'full');
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it('says so when the page gives no address to search near', async () => {
    const { page } = await checkout({ lang: 'sr', near: '' });
    await expect
      .poll(() => status(page).textContent())
      .toBe('Za listu paketomata prvo je potrebna adresa dostave.');
    expect(await options(page).count()).toBe(0);
    await checkAxe(page, 'no near');
    await page.context().close();
  });

  it('explains a failure in words and tries again', async () => {
    // The finder refuses a bad `near` (422), passed on by the proxy.
    const bad = await checkout({ lang: 'en', near: 'nowhere' });
    await expect
      .poll(() => status(bad.page).textContent())
      .toBe("The lockers could not be loaded. Please try again. The shop's server answered 422.");
    await checkAxe(bad.page, 'error');
    await bad.page.context().close();

    const { page, violations } = await checkout({ lang: 'tr', endpoint: BROKEN });
    await expect
      .poll(() => status(page).textContent())
      .toBe('Dolaplar yüklenemedi. Lütfen tekrar deneyin. Mağazanın sunucusu 502 yanıtını verdi.');
    expect(await options(page).count()).toBe(0);
    await shot(page.locator('main'), 'picker-tr-error.png');
    await checkAxe(page, 'error tr');
    // The finder is back; "Try again", from the keyboard, asks again.
    mended = true;
    await page.getByRole('button', { name: 'Tekrar dene' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => options(page).count()).toBe(3);
    await expect
      .poll(() => status(page).textContent())
      .toBe('3 dolap bulundu, en yakını ilk sırada.');
    expect(await page.getByRole('button', { name: 'Tekrar dene' }).isVisible()).toBe(false);
    expect(violations).toEqual([]);
    await page.context().close();
  });
});
