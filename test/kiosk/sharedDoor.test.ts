import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, waitFor } from '@locker/server/testing';
import { kioskScene, launchBrowser, typeOnKeypad, type KioskScene } from './fixture';
import { forTheReadme, screenFile } from '../screenshots';
import { queuedReports } from './restart';
import { checkScreen } from './screenChecks';

// Issue 27, "several parcels, one door, one code": in Chromium, on the real server and
// PostgreSQL, the simulated cabinet. The courier puts two parcels for one person in one
// door (the kiosk asks); the customer types the one code, the door opens once, both are
// collected, each confirmed on its own.

const PORTRAIT = { width: 1080, height: 1920 };

let browser: Browser;
let k: KioskScene | undefined;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await k?.stop();
  await browser.close();
});

async function shot(page: Page, name: string): Promise<void> {
  const file = screenFile(name);
  await page.screenshot({ path: file });
  forTheReadme(file);
}

describe('a shared door on the kiosk', () => {
  it('the courier puts two parcels for one person in one door; one code collects both', async () => {
    k = await kioskScene('1:M,2:M');
    const api = client(k.stack.url, k.scene.org.apiKey);
    const phone = `+38344${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
    const book = async () => {
      const answer = await api.post('/api/v1/shipments', {
        destination_station_id: k!.scene.station.id,
        parcel_size: 'S',
        recipient_name: 'Drita Gashi',
        recipient_phone: phone,
        recipient_language: 'en',
      });
      expect(answer.status).toBe(201);
      return answer.body as { id: string; tracking_number: string };
    };
    const first = await book();
    const second = await book();
    const page = await browser.newPage({ viewport: PORTRAIT });
    await page.goto(`${k.host.url}?lang=en`);
    await page.getByText('Support: +383 38 555 000').waitFor();

    // The first parcel: a door of its own (an M door, which holds two S parcels).
    await page.getByRole('button', { name: 'Courier' }).click();
    await typeOnKeypad(page, k.scene.courier.number);
    await page.getByRole('button', { name: 'OK' }).click();
    await page.getByRole('heading', { name: 'Hello, Arben', exact: true }).waitFor();
    await typeOnKeypad(page, first.tracking_number);
    await page.getByRole('button', { name: 'OK' }).click();
    const door = Number(
      (await page.getByRole('heading', { name: /^Door \d+ is open$/ }).textContent())!.match(
        /\d+/,
      )![0],
    );
    k.cabinet.closeDoor(door, true);
    await page.getByText('Parcel deposited. The recipient gets the code by SMS.').waitFor();
    await page.getByRole('button', { name: 'Next parcel' }).click();

    // The second: the kiosk asks.
    await typeOnKeypad(page, second.tracking_number);
    await page.getByRole('button', { name: 'OK' }).click();
    await page.getByRole('heading', { name: 'Same door?' }).waitFor();
    await page.getByText(`as the one in door ${door}, and it fits`).waitFor();
    await checkScreen(page, 'courier-shared-door');
    await shot(page, 'portrait-en-courier-shared-door.png');
    await page.getByRole('button', { name: `Yes, door ${door}` }).click();
    await page.getByRole('heading', { name: `Door ${door} is open` }).waitFor();
    await page.getByText('Put this parcel in with the other one and close the door.').waitFor();
    await shot(page, 'portrait-en-courier-shared-door-open.png');
    k.cabinet.closeDoor(door, true);
    await page
      .getByText('Parcel deposited with the other one. The recipient uses the same code.')
      .waitFor();
    await page.getByRole('button', { name: 'Finish' }).click();
    for (const s of [first, second])
      expect((await api.get(`/api/v1/shipments/${s.id}`)).body).toMatchObject({
        status: 'ready_for_pickup',
      });

    // The customer: one code, the door opens once, both are taken.
    const code = await k.stack.pickupCodeSentTo(phone);
    let opens = 0;
    k.cabinet.on('door', (position: number, state: { closed: boolean }) => {
      if (position === door && !state.closed) opens++;
    });
    k.cabinet.closeAfterOpen(door, 1500, false);
    await page.getByRole('button', { name: 'Pick up a parcel' }).click();
    await typeOnKeypad(page, code);
    await page.getByRole('button', { name: 'OK' }).click();
    await page.getByRole('heading', { name: `Door ${door} is open` }).waitFor();
    await page.getByText('Take your 2 parcels and close the door.').waitFor();
    await shot(page, 'portrait-en-pickup-shared-door.png');
    await page.getByText('Thank you! Enjoy your parcels.').waitFor();
    for (const s of [first, second])
      await waitFor(async () =>
        (await api.get(`/api/v1/shipments/${s.id}`)).body.status === 'collected' ? true : undefined,
      );
    expect(opens).toBe(1);
    // Each parcel its own events: booked, in the locker, collected.
    for (const s of [first, second]) {
      const tracking = (await api.get(`/api/v1/track/${s.tracking_number}`)).body;
      expect(tracking.events.map((e: { status: string }) => e.status)).toEqual([
        'booked',
        'ready_for_pickup',
        'collected',
      ]);
    }
    await page.close();
  }, 120_000);

  it('on its own (the service down), the one code opens the door once and confirms both', async () => {
    const own = await kioskScene('1:M,2:M');
    try {
      const person = { name: 'Drita Gashi', phone: '+38344' + String(Date.now()).slice(-6) };
      const [first, b] = [
        await own.stack.shipment(own.scene.org.id, own.scene.station.id, person),
        await own.stack.shipment(own.scene.org.id, own.scene.station.id, person),
      ];
      // One courier's visit: the first deposited, the second joins its door.
      const put = (path: string, body: object) =>
        own.scene.terminal.api.post(path, { courierNo: own.scene.courier.number, ...body });
      const deposited = await put('/terminal/v1/deposit', {
        trackingNumber: first.tracking_number,
      });
      const a = {
        shipment: first,
        door: deposited.body.door as number,
        code: await own.stack.pickupCodeSentTo(person.phone),
      };
      const joined = await put('/terminal/v1/deposit/shared', {
        trackingNumber: b.tracking_number,
        door: a.door,
      });
      expect(joined.status).toBe(200);
      await waitFor(() => (own.core.offline.held() === 2 ? true : undefined), 15_000);
      await own.stack.server.close();
      let opens = 0;
      own.cabinet.on('door', (position: number, state: { closed: boolean }) => {
        if (position === a.door && !state.closed) opens++;
      });
      // The first call finds the service gone; the kiosk checks the code itself.
      await own.core.pickup('00000000');
      expect(await own.core.pickup(a.code)).toEqual({
        kind: 'door_open',
        door: a.door,
        parcels: 2,
      });
      own.cabinet.closeDoor(a.door, false);
      const queued = await waitFor(() => {
        const q = queuedReports(own.core.config.dataDir);
        return q.length === 2 ? q : undefined;
      });
      expect(queued.map((r) => r.body.shipmentId).sort()).toEqual([a.shipment.id, b.id].sort());
      expect(queued.every((r) => r.body.collected === true)).toBe(true);
      expect(opens).toBe(1);
      // Both handed out here: the kiosk holds nothing more to hand out on its own, so the
      // code opens nothing (out of service, as any kiosk with an empty set).
      expect(await own.core.pickup(a.code)).toEqual({ kind: 'unavailable' });
    } finally {
      await own.host.close();
      await own.core.stop();
    }
  }, 120_000);
});
