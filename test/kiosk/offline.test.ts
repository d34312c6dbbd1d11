import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedCabinet, serveTcp } from '@locker/lock-driver';
import { REPO_ROOT, type RunningServer } from '@locker/server';
import { client, startTestServer, waitFor } from '@locker/server/testing';
import { KioskCore, RENDERER_DIR, loadKioskConfig, startBrowserHost } from '@locker/kiosk';
import {
  kioskScene,
  kioskStation,
  launchBrowser,
  typeOnKeypad,
  writeTestKioskConfig,
} from './fixture';
import { queuedReports, restart } from './restart';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

describe('a kiosk that loses the service', () => {
  it('queues the confirm while the server is down and replays it with the door-close time', async () => {
    const k = await kioskScene('1:S');
    let revived: RunningServer | undefined;
    const page = await browser.newPage({ viewport: { width: 1080, height: 1600 } });
    try {
      const { shipment, code } = await k.scene.deposit();
      await page.goto(`${k.host.url}?lang=en`);
      await page.getByRole('button', { name: 'Pick up a parcel' }).click();
      await typeOnKeypad(page, code);
      await page.getByRole('button', { name: 'OK' }).click();
      await page.getByRole('heading', { name: 'Door 1 is open' }).waitFor();

      await k.stack.server.close();
      const before = Date.now();
      k.cabinet.closeDoor(1, false);
      await page.getByText('Thank you! Enjoy your parcel.').waitFor();
      const after = Date.now();
      // Once this person is done, the next one meets one calm out-of-service screen.
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('heading', { name: 'This locker is out of service' }).waitFor();
      await page.getByText('Your parcels are safe inside.', { exact: false }).waitFor();
      expect(await page.getByRole('button', { name: 'Pick up a parcel' }).count()).toBe(0);
      const [queued] = await waitFor(() =>
        queuedReports(k.core.config.dataDir).length === 1
          ? queuedReports(k.core.config.dataDir)
          : undefined,
      );
      const closedAt = Date.parse(queued!.occurred_at);
      expect(closedAt).toBeGreaterThanOrEqual(before);
      expect(closedAt).toBeLessThanOrEqual(after);

      revived = await restart(k.stack.url, k.stack.databaseUrl);
      await waitFor(
        async () => ((await k.core.getState()).pendingReports === 0 ? true : undefined),
        15_000,
      );
      // It clears itself when the service answers again.
      await page.getByRole('button', { name: 'Pick up a parcel' }).waitFor();
      const tracking = (
        await client(revived.url, k.scene.org.apiKey).get(
          `/api/v1/track/${shipment.tracking_number}`,
        )
      ).body;
      expect(tracking.status).toBe('collected');
      expect(tracking.events.at(-1)).toEqual({
        status: 'collected',
        occurred_at: queued!.occurred_at,
        station_code: k.scene.station.code,
      });
    } finally {
      await page.close();
      await k.host.close();
      await k.core.stop();
      await revived?.close();
    }
  });

  it('replays exactly once after the kiosk is killed with SIGKILL between door close and confirm', async () => {
    const stack = await startTestServer();
    const scene = await stack.scene('1:S');
    const { shipment, code } = await scene.deposit();
    const cabinet = new SimulatedCabinet({ boards: 1 });
    const gateway = await serveTcp(cabinet);
    const config = writeTestKioskConfig(stack.url, scene.terminal.token, {
      lock: { kind: 'tcp', host: '127.0.0.1', port: gateway.port, boards: 1 },
    });
    const dataDir = path.join(path.dirname(config), 'data');
    const children: ChildProcess[] = [];
    const startKiosk = async () => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'kiosk/src/hosts/browser.ts', config],
        { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
      );
      children.push(child);
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      return waitFor(() => /kiosk ready at (\S+)/.exec(out)?.[1], 20_000);
    };
    let revived: RunningServer | undefined;
    try {
      const url = await startKiosk();
      const opened = await (
        await fetch(`${url}bridge/pickup`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify([code]),
        })
      ).json();
      expect(opened).toEqual({ kind: 'door_open', door: 1 });
      // The service drops, the customer shuts the door: the confirm is on disk, not sent.
      await stack.server.close();
      cabinet.closeDoor(1, false);
      await waitFor(() => (queuedReports(dataDir).length === 1 ? true : undefined));
      const killed = children[0]!;
      await new Promise<void>((resolve) => {
        killed.once('exit', () => resolve());
        killed.kill('SIGKILL');
      });

      revived = await restart(stack.url, stack.databaseUrl);
      await startKiosk();
      await waitFor(() => (queuedReports(dataDir).length === 0 ? true : undefined), 20_000);
      const events =
        await revived.sql`select status from tracking_events where shipment_id = ${shipment.id} order by id`;
      expect(events.map((e) => e.status)).toEqual(['booked', 'ready_for_pickup', 'collected']);
      const [row] = await revived.sql`select status from shipments where id = ${shipment.id}`;
      expect(row?.status).toBe('collected');
    } finally {
      for (const child of children) child.kill('SIGKILL');
      await revived?.close();
      await gateway.close();
      cabinet.stop();
    }
  });

  it('boots while the service is down and shows the support phone of the last run, out of service', async () => {
    const { stack, scene } = await kioskStation('1:S');
    const configFile = writeTestKioskConfig(stack.url, scene.terminal.token);
    const earlier = await KioskCore.start(loadKioskConfig(configFile), { stdout: false });
    await waitFor(async () =>
      (await earlier.getState()).configSource === 'service' ? true : undefined,
    );
    await earlier.stop();
    await stack.server.close();

    const core = await KioskCore.start(loadKioskConfig(configFile), { stdout: false });
    const host = await startBrowserHost(core, RENDERER_DIR);
    const page = await browser.newPage({ viewport: { width: 1080, height: 1600 } });
    let revived: RunningServer | undefined;
    try {
      await page.goto(`${host.url}?lang=en`);
      await page.getByRole('heading', { name: 'This locker is out of service' }).waitFor();
      await page.getByText('Support: +383 38 555 000').waitFor();
      revived = await restart(stack.url, stack.databaseUrl);
      await page
        .getByRole('heading', { name: 'This locker is out of service' })
        .waitFor({ state: 'detached', timeout: 15_000 });
      await page.getByRole('button', { name: 'Pick up a parcel' }).waitFor();
      await page.getByText('Support: +383 38 555 000').waitFor();
    } finally {
      await page.close();
      await host.close();
      await core.stop();
      await revived?.close();
      await stack.close();
    }
  });
});
