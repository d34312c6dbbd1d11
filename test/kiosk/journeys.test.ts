import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashTechnicianPin } from '@locker/kiosk';
import { client, waitFor } from '@locker/server/testing';
import { kioskScene, launchBrowser, typeOnKeypad, type KioskScene } from './fixture';

let browser: Browser;
let page: Page | undefined;
let k: KioskScene | undefined;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());
afterEach(async () => {
  await page?.close();
  await k?.stop();
  page = undefined;
  k = undefined;
});

const TECHNICIAN_PIN = '482913';

async function open(
  doors?: string,
  stationExtra = {},
  kioskExtra = {},
): Promise<{ k: KioskScene; page: Page }> {
  k = await kioskScene(doors, stationExtra, kioskExtra);
  page = await browser.newPage({ viewport: { width: 1080, height: 1600 } });
  await page.goto(`${k.host.url}?lang=en`);
  await page.getByText('Support: +383 38 555 000').waitFor();
  return { k, page };
}

async function merchantShipment(scene: KioskScene, size = 'S') {
  const api = client(scene.stack.url, scene.scene.org.apiKey);
  const answer = await api.post('/api/v1/shipments', {
    destination_station_id: scene.scene.station.id,
    parcel_size: size,
    recipient_name: 'Drita Gashi',
    recipient_phone: `+38344${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`,
    recipient_language: 'sq',
  });
  expect(answer.status).toBe(201);
  return {
    shipment: answer.body as { id: string; tracking_number: string; recipient_phone: string },
    api,
  };
}

/** The courier signs in and deposits one parcel; answers the door shown open. */
async function depositOnScreen(page: Page, k: KioskScene, trackingNumber: string): Promise<void> {
  await page.getByRole('button', { name: 'Courier' }).click();
  await typeOnKeypad(page, k.scene.courier.number);
  await page.getByRole('button', { name: 'OK' }).click();
  // First name only: bystanders read the screen too.
  await page.getByRole('heading', { name: 'Hello, Arben', exact: true }).waitFor();
  await typeOnKeypad(page, trackingNumber);
  await page.getByRole('button', { name: 'OK' }).click();
}

describe('kiosk journeys in Chromium, real server and PostgreSQL, simulated cabinet', () => {
  it('a courier deposits on screen, the customer picks up with the SMS code, the merchant sees collected', async () => {
    const { k, page } = await open();
    const { shipment, api } = await merchantShipment(k);

    await depositOnScreen(page, k, shipment.tracking_number);
    await page.getByRole('heading', { name: 'Door 1 is open' }).waitFor();
    await expect
      .poll(() => page.locator('.cabinet-current .cabinet-number').textContent())
      .toBe('1');
    k.cabinet.closeDoor(1, true);
    await page.getByText('Parcel deposited. The recipient gets the code by SMS.').waitFor();
    await page.getByRole('button', { name: 'Finish' }).click();

    const code = await k.stack.pickupCodeSentTo(shipment.recipient_phone);
    // The customer takes the parcel and shuts the door a second after it opens (a shorter
    // window can pass between two sensor polls on a loaded machine).
    k.cabinet.closeAfterOpen(1, 1000, false);
    await page.getByRole('button', { name: 'Pick up a parcel' }).click();
    await typeOnKeypad(page, code);
    await page.getByRole('button', { name: 'OK' }).click();
    await page.getByRole('heading', { name: 'Door 1 is open' }).waitFor();
    await page.getByText('Thank you! Enjoy your parcel.').waitFor();

    await waitFor(async () =>
      (await api.get(`/api/v1/shipments/${shipment.id}`)).body.status === 'collected'
        ? true
        : undefined,
    );
    const tracking = (await api.get(`/api/v1/track/${shipment.tracking_number}`)).body;
    expect(tracking.events.map((e: { status: string }) => e.status)).toEqual([
      'booked',
      'ready_for_pickup',
      'collected',
    ]);
  });

  it('a customer returns a collected parcel: door held, parcel in, return recorded', async () => {
    const { k, page } = await open();
    const collected = await k.scene.collected();
    k.cabinet.closeAfterOpen(1, 1000, true);
    await page.getByRole('button', { name: 'Return a parcel' }).click();
    await typeOnKeypad(page, collected.tracking_number);
    await page.getByRole('button', { name: 'OK' }).click();
    await page.getByRole('heading', { name: 'Door 1 is open' }).waitFor();
    await page.getByText('Thank you! Your return has been recorded.').waitFor();
    const api = client(k.stack.url, k.scene.org.apiKey);
    await waitFor(async () =>
      (await api.get(`/api/v1/shipments/${collected.id}`)).body.status === 'returned_to_locker'
        ? true
        : undefined,
    );
  });

  it('shows one neutral message for a wrong code, and a countdown once rate limited', async () => {
    const { page } = await open();
    await page.getByRole('button', { name: 'Pick up a parcel' }).click();
    await typeOnKeypad(page, '12345678');
    for (let attempt = 1; attempt <= 11; attempt++) {
      // The refused code stays typed: each OK sends it again.
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/bridge/pickup')),
        page.getByRole('button', { name: 'OK' }).click(),
      ]);
      const message = page.locator('.message');
      if (attempt <= 10) {
        await expect
          .poll(() => message.textContent())
          .toBe('This code is not valid. Please check it and try again.');
      } else {
        await expect
          .poll(() => message.textContent())
          .toMatch(/^Too many attempts\. Please wait \d+ s\.$/);
        expect(await page.getByRole('alert').count()).toBe(0);
        expect(await page.getByRole('button', { name: 'OK' }).isDisabled()).toBe(true);
      }
    }
    // 88 key presses in Chromium: on a loaded 2-core machine that alone can take 30 s.
  }, 90_000);

  it('names the size needed when the cabinet is full', async () => {
    const { k, page } = await open('1:S');
    await k.scene.deposit();
    const { shipment } = await merchantShipment(k, 'S');
    await depositOnScreen(page, k, shipment.tracking_number);
    await page.getByText('No free door for a parcel of size S.').waitFor();
  });

  it('reports a jammed door, which leaves service, and gives the courier another door', async () => {
    const { k, page } = await open('1:S,2:S');
    k.cabinet.jam(1);
    const { shipment } = await merchantShipment(k);
    await depositOnScreen(page, k, shipment.tracking_number);
    await page.getByRole('heading', { name: 'Door 2 is open' }).waitFor({ timeout: 10_000 });
    const cabinet = await k.scene.terminal.api.get('/terminal/v1/cabinet');
    expect(cabinet.body.doors[0]).toMatchObject({
      position: 1,
      status: 'out_of_service',
      parcel: null,
    });
    expect(cabinet.body.doors[1]).toMatchObject({
      position: 2,
      status: 'occupied',
      parcel: { trackingNumber: shipment.tracking_number },
    });
  });

  it('undoes a deposit whose door the courier shut empty, and takes the parcel on the next scan', async () => {
    const { k, page } = await open('1:S,2:S');
    const { shipment, api } = await merchantShipment(k);
    await depositOnScreen(page, k, shipment.tracking_number);
    await page.getByRole('heading', { name: 'Door 1 is open' }).waitFor();
    k.cabinet.closeDoor(1, false);
    await page.getByRole('heading', { name: 'Door 1 is closed' }).waitFor();
    await page
      .getByText('The door was closed with nothing inside, so the parcel is not deposited.', {
        exact: false,
      })
      .waitFor();
    await waitFor(async () =>
      (await api.get(`/api/v1/shipments/${shipment.id}`)).body.status === 'booked'
        ? true
        : undefined,
    );

    await page.getByRole('button', { name: 'Next parcel' }).click();
    await typeOnKeypad(page, shipment.tracking_number);
    await page.getByRole('button', { name: 'OK' }).click();
    await page.getByRole('heading', { name: 'Door 1 is open' }).waitFor();
    k.cabinet.closeDoor(1, true);
    await page.getByText('Parcel deposited. The recipient gets the code by SMS.').waitFor();
    const tracking = (await api.get(`/api/v1/track/${shipment.tracking_number}`)).body;
    expect(tracking.events.map((e: { status: string }) => e.status)).toEqual([
      'booked',
      'ready_for_pickup',
      'booked',
      'ready_for_pickup',
    ]);
  });

  it('shows technicians where the sensors and the service disagree, and a silent controller', async () => {
    const { k, page } = await open(
      '1:S,2:S,3:S',
      {},
      { technicianPinHash: hashTechnicianPin(TECHNICIAN_PIN) },
    );
    const { door } = await k.scene.deposit(); // recorded, but nothing put in the simulator
    k.cabinet.setItem(3, true); // something left in a door the service counts as free
    // The technician's chord (the screen's corner held 3 s does the same).
    await page.keyboard.press('Control+Alt+KeyS');
    await typeOnKeypad(page, TECHNICIAN_PIN);
    await page.getByRole('button', { name: 'OK' }).click();
    await page.getByRole('heading', { name: 'Maintenance' }).waitFor();
    await page.getByText(`Station ${k.scene.station.code}`).waitFor();
    const row = (position: number) =>
      page
        .locator('.sensors tbody tr')
        .filter({ has: page.getByRole('rowheader', { name: String(position), exact: true }) });
    await expect
      .poll(() => row(door).textContent())
      .toBe(`${door}occupiedclosedemptyReads empty, but the service expects a parcel here.`);
    await expect
      .poll(() => row(3).textContent())
      .toBe('3freecloseditemSomething is inside a door the service counts as free.');
    expect(await page.locator('.sensor-mismatch').count()).toBe(2);
    expect(await page.getByRole('button').allTextContents()).not.toContain(
      expect.stringMatching(/open/i),
    );

    k.cabinet.setResponsive(0, false);
    await page
      .getByText('The door controller does not answer. Check its cable and power.')
      .waitFor();
    k.cabinet.setResponsive(0, true);
    await page.locator('.sensors').waitFor();
  });

  it('refuses a script injected into the page: the content security policy holds', async () => {
    const { page } = await open('1:S');
    const outcome = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'document.body.dataset.injected = "ran"';
      document.body.append(script);
      return document.body.dataset.injected ?? 'refused';
    });
    expect(outcome).toBe('refused');
  });

  it('returns home and clears what was typed after the idle time the heartbeat configured', async () => {
    // 5 s: typing four digits on a loaded machine must not outlast it.
    const { page } = await open('1:S', { idleTimeoutSeconds: 5 });
    await page.getByRole('button', { name: 'Pick up a parcel' }).click();
    await typeOnKeypad(page, '1234');
    expect(await page.locator('.keypad-display').getAttribute('data-value')).toBe('1234');
    // 5 s idle; the wait leaves room for a loaded machine.
    await page.getByRole('button', { name: 'Pick up a parcel' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Pick up a parcel' }).click();
    expect(await page.locator('.keypad-display').getAttribute('data-value')).toBe('');
  });

  it('a courier takes a deposited return and an expired parcel out on screen; the merchant sees both coming back', async () => {
    const { k, page } = await open('1:S,2:S,3:S');
    const parcel = await k.scene.collected();
    const started = await k.scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    await k.scene.terminal.api.post('/terminal/v1/return/confirm', {
      returnId: started.body.returnId,
      deposited: true,
    });
    const unclaimed = await k.scene.deposit();
    // Deposited eight days ago: past the default maximum storage time of seven.
    await k.stack.sql`
      update shipments set deposited_at = now() - interval '8 days' where id = ${unclaimed.shipment.id}`;
    for (const door of [started.body.door as number, unclaimed.door]) {
      k.cabinet.setItem(door, true);
      k.cabinet.closeAfterOpen(door, 1000, false);
    }

    await page.getByRole('button', { name: 'Courier' }).click();
    await typeOnKeypad(page, k.scene.courier.number);
    await page.getByRole('button', { name: 'OK' }).click();
    await page.getByRole('button', { name: 'Take out returns and expired parcels' }).click();
    await page.getByRole('heading', { name: `Door ${started.body.door} is open` }).waitFor();
    await page.getByRole('heading', { name: `Door ${unclaimed.door} is open` }).waitFor();
    await page.getByText('Everything is taken. Thank you!').waitFor();
    const api = client(k.stack.url, k.scene.org.apiKey);
    for (const id of [parcel.id, unclaimed.shipment.id]) {
      await waitFor(async () =>
        (await api.get(`/api/v1/shipments/${id}`)).body.status === 'return_collected'
          ? true
          : undefined,
      );
    }
  });
});
