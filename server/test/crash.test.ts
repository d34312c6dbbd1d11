import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as admin from '../src/admin/commands';
import { REPO_ROOT } from '../src/config';
import { connect, type Sql } from '../src/db/connect';
import { migrate } from '../src/db/migrate';
import { registerShipment } from '../src/shipments/register';
import { freshDatabaseUrl } from './databases';
import { client, waitFor } from './harness';

/** The real server entry point in a child process, so it can be killed with SIGKILL. */
async function spawnServer(databaseUrl: string, smsTransport: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SMS_TRANSPORT: smsTransport,
      LOCKER_DEV: '1',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await waitFor(() => /"port":(\d+).*"server listening"/.exec(output)?.[1], 20_000);
  return { child, url: `http://127.0.0.1:${port}` };
}

function kill9(child: ChildProcess) {
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

let sql: Sql;
let databaseUrl: string;
beforeAll(async () => {
  databaseUrl = await freshDatabaseUrl();
  sql = connect(databaseUrl, { max: 2 });
  await migrate(sql);
});
afterAll(() => sql.end());

describe('a server killed with SIGKILL', () => {
  it('leaves every deposit whole or not at all, and sends every queued SMS after a restart', async () => {
    const org = await admin.createOrganization(sql, 'Crash Shop');
    const doors = Array.from({ length: 40 }, (_, i) => `${i + 1}:S`).join(',');
    const station = await admin.createStation(sql, { code: 'CRASH', name: 'Crash Station', doors });
    const terminal = await admin.createTerminal(sql, 'CRASH');
    const courier = await admin.createCourier(sql, 'C-CRASH', 'Courier');
    const parcels = [];
    for (let i = 0; i < 40; i++) {
      parcels.push(
        (await registerShipment(sql, org.id, {
          destinationStationId: station.id,
          parcelSize: 'S',
          recipientName: 'Ana',
          recipientPhone: `+3834900${String(i).padStart(4, '0')}`,
          recipientLanguage: 'sq',
        }))!,
      );
    }

    // The provider is unreachable, so every SMS waits in the outbox when the server dies.
    const first = await spawnServer(databaseUrl, 'file:/nonexistent-dir/sms.jsonl');
    const api = client(first.url, terminal.token);
    const inFlight = parcels.map((p) =>
      api
        .post('/terminal/v1/deposit', {
          courierNo: courier.number,
          trackingNumber: p.tracking_number,
        })
        .catch(() => undefined),
    );
    await waitFor(async () => {
      const n =
        (
          await sql<
            { n: number }[]
          >`select count(*)::int as n from shipments where status = 'ready_for_pickup'`
        )[0]?.n ?? 0;
      return n >= 5 ? true : undefined;
    });
    await kill9(first.child);
    await Promise.all(inFlight);

    const rows = await sql<
      { status: string; occupied: number; sms: number; events: number; slot_no: number | null }[]
    >`
      select sh.status,
             (select count(*)::int from door_occupancy o where o.shipment_id = sh.id) as occupied,
             (select count(*)::int from outbox m where m.channel = 'sms' and m.shipment_id = sh.id) as sms,
             (select count(*)::int from tracking_events e where e.shipment_id = sh.id and e.status = 'ready_for_pickup') as events,
             sh.slot_no
        from shipments sh where sh.destination_station_id = ${station.id}`;
    const deposited = rows.filter((r) => r.status === 'ready_for_pickup');
    expect(deposited.length).toBeGreaterThanOrEqual(5);
    for (const r of rows) {
      const whole = r.status === 'ready_for_pickup';
      expect(r).toEqual({
        status: r.status,
        occupied: whole ? 1 : 0,
        sms: whole ? 1 : 0,
        events: whole ? 1 : 0,
        slot_no: whole ? expect.any(Number) : null,
      });
    }

    // Time passes before the restart: the first server's failed attempts wait out their
    // backoff (seconds to minutes, by how long it ran), and a batch it had claimed when it
    // died waits out its 60 s lease. Nothing may be lost meanwhile, only late.
    await sql`update outbox set next_attempt_at = now() where channel = 'sms' and delivered_at is null`;
    const smsDir = mkdtempSync(path.join(tmpdir(), 'crash-sms-'));
    const second = await spawnServer(databaseUrl, `file:${smsDir}/sms.jsonl`);
    try {
      const sent = await waitFor(() => {
        try {
          const lines = readFileSync(`${smsDir}/sms.jsonl`, 'utf8').trim().split('\n');
          return lines.length >= deposited.length ? lines : undefined;
        } catch {
          return undefined;
        }
      }, 20_000);
      expect(new Set(sent.map((l) => (JSON.parse(l) as { to: string }).to)).size).toBe(
        deposited.length,
      );
    } finally {
      await kill9(second.child);
    }
  });
});
