/**
 * docs/operations.md's backup and restore, done as the guide says: `pg_dump -Fc` of a
 * live database with parcels in its doors, `pg_restore` into a fresh database, and the
 * service started on the restored copy finds every parcel, door and code as it was.
 *
 * pg_dump must be of the server's major version or newer. Debian 12 ships the client
 * tools of PostgreSQL 15 (scripts/system-deps.sh installs them with the server of the same
 * version), and no pg_dump of the embedded PostgreSQL's newer major version exists here, so
 * the test runs its own PostgreSQL of the version the tools are: production's situation
 * (a system PostgreSQL and its own client tools).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as admin from '../src/admin/commands';
import { connect } from '../src/db/connect';
import { serviceUser } from '../src/db/embeddedPlaces';
import { registerShipment } from '../src/shipments/register';
import { startServer, type RunningServer } from '../src/server';
import { client, waitFor } from './harness';

/** The newest PostgreSQL whose server and client tools are both installed. */
function postgresTools(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) =>
          ['postgres', 'initdb', 'pg_dump', 'pg_restore'].every((b) =>
            existsSync(path.join(root, v, 'bin', b)),
          ),
        )
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0]) {
    throw new Error(
      'PostgreSQL server and client tools not found under /usr/lib/postgresql: run bash scripts/system-deps.sh',
    );
  }
  return path.join(root, versions[0], 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

let bin: string;
let cluster: ChildProcess;
let clusterUrl: string;
const servers: RunningServer[] = [];
const made: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
};

beforeAll(async () => {
  bin = postgresTools();
  const user = await serviceUser(); // PostgreSQL will not run as root
  const dir = tempDir('locker-backup-pg-');
  if (user) chownSync(dir, user.uid, user.gid);
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  const init = spawnSync(
    path.join(bin, 'initdb'),
    ['-D', dir, '-U', 'locker', '--auth=trust', '-E', 'UTF8', '--no-sync'],
    {
      ...as,
      encoding: 'utf8',
    },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  cluster = spawn(
    path.join(bin, 'postgres'),
    [
      '-D',
      dir,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
    ],
    { ...as, stdio: 'ignore' },
  );
  clusterUrl = `postgres://locker@127.0.0.1:${port}`;
  await waitFor(async () => {
    const probe = connect(`${clusterUrl}/postgres`, { max: 1 });
    try {
      await probe`select 1`;
      return true;
    } catch {
      return undefined;
    } finally {
      await probe.end({ timeout: 1 });
    }
  }, 30_000);
});

afterAll(async () => {
  for (const server of servers) await server.close();
  if (cluster && cluster.exitCode === null) {
    await new Promise<void>((resolve) => {
      cluster.once('exit', () => resolve());
      cluster.kill('SIGINT');
    });
  }
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function run(tool: string, args: string[]) {
  const result = spawnSync(path.join(bin, tool), args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${tool} failed: ${result.stderr}`);
  return result.stdout;
}

async function serve(database: string, smsFile: string) {
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: `${clusterUrl}/${database}`,
    smsTransport: `file:${smsFile}`,
    development: true,
    logLevel: 'silent',
    dbPoolSize: 4,
  });
  servers.push(server);
  return server;
}

/** What a restore must bring back exactly: parcels, doors' contents, histories, the audit log. */
async function snapshot(url: string) {
  const sql = connect(url, { max: 1 });
  try {
    return {
      shipments: await sql`
        select tracking_number, status, slot_no, encode(pickup_code_hash, 'hex') as code_hash,
               deposited_at, recipient_phone from shipments order by tracking_number`,
      occupancy: await sql`
        select d.position, sh.tracking_number, o.kind, o.since from door_occupancy o
          join doors d on d.id = o.door_id join shipments sh on sh.id = o.shipment_id order by d.position`,
      events: await sql`select count(*)::int as n from tracking_events`,
      audit: await sql`select action, actor, outcome from audit_log order by id`,
      alerts: await sql`select kind, status, occurrences from alerts order by id`,
    };
  } finally {
    await sql.end();
  }
}

describe('backup and restore (docs/operations.md)', () => {
  it('brings back every parcel with pg_dump and pg_restore, and the service carries on from the copy', async () => {
    const admin0 = connect(`${clusterUrl}/postgres`, { max: 1 });
    await admin0`create database live`;
    const smsFile = path.join(tempDir('locker-backup-sms-'), 'sms.jsonl');
    const live = await serve('live', smsFile);
    const org = await admin.createOrganization(live.sql, 'Backup Shop');
    const station = await admin.createStation(live.sql, {
      code: 'BK01',
      name: 'Backup',
      doors: '1:S,2:M,3:L,4:S',
    });
    const terminal = await admin.createTerminal(live.sql, 'BK01');
    const courier = await admin.createCourier(live.sql, 'BK-C', 'Courier');
    const kiosk = client(live.url, terminal.token);
    const phones = ['+38344100001', '+38344100002', '+38344100003'];
    const tracking: string[] = [];
    for (const phone of phones) {
      const shipment = await registerShipment(live.sql, org.id, {
        destinationStationId: station.id,
        parcelSize: 'S',
        recipientName: 'Drita Gashi',
        recipientPhone: phone,
        recipientLanguage: 'sq',
      });
      tracking.push(shipment!.tracking_number);
    }
    for (const number of tracking.slice(0, 2)) {
      expect(
        (
          await kiosk.post('/terminal/v1/deposit', {
            courierNo: courier.number,
            trackingNumber: number,
          })
        ).status,
      ).toBe(200);
    }
    await kiosk.post('/terminal/v1/door/fault', { position: 3 });
    const codeFor = (phone: string) =>
      waitFor(() => {
        const lines = existsSync(smsFile)
          ? readFileSync(smsFile, 'utf8').trim().split('\n').filter(Boolean)
          : [];
        const sms = lines
          .map((l) => JSON.parse(l) as { to: string; text: string })
          .find((m) => m.to === phone);
        return sms ? /\b(\d{8})\b/.exec(sms.text)?.[1] : undefined;
      });
    const code = await codeFor(phones[0]!);

    const dump = path.join(tempDir('locker-backup-'), 'locker.dump');
    run('pg_dump', ['--format=custom', `--file=${dump}`, `${clusterUrl}/live`]);
    await admin0`create database restored`;
    run('pg_restore', [
      '--no-owner',
      '--exit-on-error',
      '--single-transaction',
      `--dbname=${clusterUrl}/restored`,
      dump,
    ]);
    await admin0.end();

    const before = await snapshot(`${clusterUrl}/live`);
    const after = await snapshot(`${clusterUrl}/restored`);
    expect(after.shipments).toHaveLength(3);
    expect(after.occupancy).toHaveLength(2);
    expect(after).toEqual(before);

    // The service on the restored copy: the code sent before the backup opens its door.
    await live.close();
    servers.splice(servers.indexOf(live), 1);
    const restored = await serve('restored', smsFile);
    const sameKiosk = client(restored.url, terminal.token);
    const picked = await sameKiosk.post('/terminal/v1/pickup', { code });
    expect(picked.status).toBe(200);
    expect(picked.body.door).toBe(
      before.occupancy.find((o) => o.tracking_number === tracking[0])!.position,
    );
    // And it goes on numbering rows after the restored ones.
    expect(
      (
        await sameKiosk.post('/terminal/v1/deposit', {
          courierNo: courier.number,
          trackingNumber: tracking[2],
        })
      ).status,
    ).toBe(200);
  });
});
