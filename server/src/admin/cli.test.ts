import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../config';
import { hashSecret } from '../domain/secrets';
import { useTestServer } from '../../test/harness';
import { runAdmin } from './run';

const run = promisify(execFile);
const stack = useTestServer();

interface Answer {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI's entry point in-process, with the arguments an operator would type. */
async function admin(...args: string[]): Promise<Answer> {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, {
    out: (t) => (stdout += t),
    err: (t) => (stderr += t),
    env: { ...process.env, DATABASE_URL: stack.databaseUrl },
  });
  return { code, stdout, stderr };
}

/** `pnpm admin ...` exactly as an operator types it, from the repository root. */
async function pnpmAdmin(...args: string[]): Promise<Answer> {
  try {
    const { stdout, stderr } = await run('pnpm', ['admin', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: stack.databaseUrl },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The whole of stdout must be one JSON object. */
function oneObject(result: Answer): Record<string, any> {
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(result.stdout) as Record<string, any>;
}
const json = async (...args: string[]) => oneObject(await admin(...args));

describe('pnpm admin, as typed', () => {
  it('creates an organization through pnpm and prints one JSON object', async () => {
    const org = oneObject(await pnpmAdmin('org', 'create', '--name', 'Shop Tirana'));
    expect(Object.keys(org).sort()).toEqual(['apiKey', 'id', 'name']);
    const [key] = await stack.sql`select key_hash from api_keys where organization_id = ${org.id}`;
    expect(Buffer.compare(key!.key_hash, hashSecret(org.apiKey))).toBe(0);
  });
});

describe('operator commands', () => {
  it('creates an organization, station, terminal and courier, each printing one JSON object', async () => {
    const station = await json(
      'station',
      'create',
      '--code',
      'TIR1',
      '--name',
      'Tirana Blloku',
      '--doors',
      '1:S:A1,2:M:A2,3:L,4:XL,5:-',
      '--support-phone',
      '+38338200200',
    );
    expect(station).toMatchObject({ code: 'TIR1', name: 'Tirana Blloku', cabinetSn: 'TIR1' });
    expect(station.doors).toEqual([
      { position: 1, size: 'S', code: 'A1' },
      { position: 2, size: 'M', code: 'A2' },
      { position: 3, size: 'L', code: null },
      { position: 4, size: 'XL', code: null },
      { position: 5, size: null, code: null },
    ]);
    const [stored] = await stack.sql`select support_phone from stations where code = 'TIR1'`;
    expect(stored!.support_phone).toBe('+38338200200');
    const withSn = await json(
      'station',
      'create',
      '--code',
      'TIR2',
      '--name',
      'Tirana 2',
      '--cabinet-sn',
      'KR-0042',
      '--doors',
      '1:S',
    );
    expect(withSn.cabinetSn).toBe('KR-0042');

    expect(
      await json(
        'door',
        'set',
        '--station',
        'TIR1',
        '--position',
        '2',
        '--service',
        'out',
        '--reason',
        'hinge bent',
      ),
    ).toEqual({
      station: 'TIR1',
      position: 2,
      status: 'out_of_service',
      reason: 'hinge bent',
      since: expect.stringMatching(/^\d{4}-/),
      by: expect.stringMatching(/^cli:/),
    });

    const terminal = await json('terminal', 'create', '--station', 'TIR1');
    expect(terminal).toMatchObject({ stationCode: 'TIR1', token: expect.stringMatching(/^tdev_/) });
    expect(
      await json('terminal', 'set-status', '--id', terminal.id, '--status', 'disabled'),
    ).toEqual({ id: terminal.id, status: 'disabled' });
    expect(await json('terminal', 'revoke', '--id', terminal.id)).toEqual({
      id: terminal.id,
      revoked: true,
    });

    const courier = await json('courier', 'create', '--number', 'K-77', '--name', 'Besnik Hoxha');
    expect(courier).toMatchObject({ number: 'K-77', name: 'Besnik Hoxha' });
    expect(await json('courier', 'deactivate', '--number', 'K-77')).toEqual({
      number: 'K-77',
      active: false,
    });

    const org = await json('org', 'create', '--name', 'Shop Durres');
    const webhook = await json(
      'org',
      'set-webhook',
      '--org',
      org.id,
      '--url',
      'https://shop.example/hooks/locker',
    );
    expect(webhook).toEqual({
      id: org.id,
      endpointId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      webhookUrl: 'https://shop.example/hooks/locker',
      webhookSecret: expect.any(String),
    });
    // The id printed is the endpoint's, as docs/webhooks.md says.
    const [endpoint] = await stack.sql`
      select organization_id from webhook_endpoints where id = ${webhook.endpointId}`;
    expect(endpoint?.organization_id).toBe(org.id);
    const rotated = await json('org', 'rotate-key', '--org', org.id);
    expect(rotated.apiKey).not.toBe(org.apiKey);
    const keys =
      await stack.sql`select revoked_at is null as active from api_keys where organization_id = ${org.id} order by created_at`;
    expect(keys.map((k) => k.active)).toEqual([false, true]);
  });

  it('lists and shows organizations, stations with their doors, terminals and couriers', async () => {
    const { org, station, terminal, courier, deposit } = await stack.scene('1:S:A1,2:M,3:L');
    await stack.sql`update doors set out_of_service = true where station_id = ${station.id} and position = 3`;
    const { shipment, door } = await deposit();
    await terminal.api.post('/terminal/v1/heartbeat', { appVersion: '9.9.9' });

    const orgs = await json('org', 'list');
    expect(orgs.organizations).toContainEqual(
      expect.objectContaining({ id: org.id, name: org.name, activeApiKeys: 1 }),
    );
    expect(await json('org', 'show', '--org', org.id)).toMatchObject({
      id: org.id,
      shipments: 1,
    });
    const stations = await json('station', 'list');
    expect(stations.stations).toContainEqual(
      expect.objectContaining({ code: station.code, doors: 3, occupied: 1, terminals: 1 }),
    );
    const shown = await json('station', 'show', '--station', station.code);
    expect(shown.doors).toHaveLength(3);
    expect(shown.doors.find((d: any) => d.position === door)).toMatchObject({
      holds: 'delivery',
      trackingNumber: shipment.tracking_number,
      status: 'in_service',
    });
    expect(shown.doors.find((d: any) => d.position === 3)).toMatchObject({
      status: 'out_of_service',
      holds: null,
    });
    expect(shown.terminals).toEqual([expect.objectContaining({ id: terminal.id })]);

    const terminals = await json('terminal', 'list', '--station', station.code);
    expect(terminals.terminals).toEqual([
      expect.objectContaining({
        id: terminal.id,
        stationCode: station.code,
        status: 'online',
        revoked: false,
        appVersion: '9.9.9',
        lastHeartbeatAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      }),
    ]);
    expect(await json('terminal', 'show', '--id', terminal.id)).toMatchObject({
      id: terminal.id,
      stationCode: station.code,
    });
    const couriers = await json('courier', 'list');
    expect(couriers.couriers).toContainEqual(
      expect.objectContaining({ number: courier.number, active: true }),
    );
    expect(await json('courier', 'show', '--number', courier.number)).toMatchObject({
      name: courier.name,
    });

    const found = await json('shipment', 'show', '--tracking', shipment.tracking_number);
    expect(found).toMatchObject({
      trackingNumber: shipment.tracking_number,
      status: 'ready_for_pickup',
      stationCode: station.code,
      door,
      organization: org.name,
    });
    expect(found.events.map((e: any) => e.status)).toContain('ready_for_pickup');
  });

  it('lays the same answer out as a table with --table', async () => {
    const { station } = await stack.scene('1:S:A1,2:M');
    const result = await admin('station', 'show', '--station', station.code, '--table');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^code +${station.code}$`, 'm'));
    expect(result.stdout).toMatch(/^doors:\nposition +code +size +status/m);
    expect(result.stdout).toMatch(/^1 +A1 +S +in_service/m);
  });

  it('prints each command its own help, naming every option', async () => {
    const help = await admin('station', 'create', '--help');
    expect(help.code).toBe(0);
    for (const option of ['--code CODE', '--name NAME', '--doors SPEC', '[--support-phone PHONE]'])
      expect(help.stdout).toContain(option);
    const group = await admin('terminal', '--help');
    expect(group.stdout).toMatch(/terminal list +every terminal/);
    expect(group.stdout).not.toMatch(/courier create/);
    const all = await admin('--help');
    expect(all.stdout).toMatch(/shipment show/);
  });

  it('fails with a non-zero exit and a clear message on stderr, printing nothing on stdout', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['station', 'create', '--code', 'BAD', '--name', 'x', '--doors', '1:XXL'],
        /size must be S, M, L, XL or -/,
      ],
      [['station', 'create', '--code', 'BAD', '--name', 'x', '--doors', '1:S,1:M'], /given twice/],
      [
        ['station', 'create', '--code', 'BAD', '--name', 'x', '--doors', '1:S'].concat([
          '--free-storage-hours',
          '200',
          '--max-storage-hours',
          '100',
        ]),
        /--max-storage-hours \(100\) must be at least --free-storage-hours \(200\)/,
      ],
      [
        ['station', 'create', '--code', 'BAD', '--name', 'x', '--doors', '1:S'].concat([
          '--support-phone',
          '12345',
        ]),
        /--support-phone must be a dialable number/,
      ],
      [
        [
          'door',
          'set',
          '--station',
          'NOPE',
          '--position',
          '1',
          '--service',
          'out',
          '--reason',
          'x y z',
        ],
        /not found/,
      ],
      [
        ['door', 'set', '--station', 'TIR1', '--position', '1', '--service', 'out'],
        /--reason TEXT/,
      ],
      [
        ['terminal', 'revoke', '--id', 'not-a-uuid'],
        /--id must be an id as `pnpm admin terminal list` prints it/,
      ],
      [['terminal', 'set-status', '--status', 'disabled'], /terminal set-status needs --id ID/],
      [['courier', 'create', '--number', 'K-1'], /courier create needs --name NAME/],
      [
        ['courier', 'create', '--number', 'K-1', '--nmae', 'x'],
        /courier create has no option --nmae/,
      ],
      [
        [
          'terminal',
          'set-status',
          '--id',
          '0b5e2f57-8a1e-4c2e-9d7e-3f5c2a1b0c9d',
          '--status',
          'asleep',
        ],
        /one of online, offline, disabled/,
      ],
      [['shipment', 'show', '--tracking', 'NOPE-1'], /shipment NOPE-1 not found/],
      [['nonsense'], /unknown command "nonsense"[\s\S]*usage: pnpm admin/],
    ];
    for (const [args, message] of cases) {
      const result = await admin(...args);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
    await json('courier', 'create', '--number', 'K-2', '--name', 'A');
    const duplicate = await admin('courier', 'create', '--number', 'K-2', '--name', 'B');
    expect(duplicate.code).not.toBe(0);
    expect(duplicate.stderr).toMatch(/already exists/);
  });

  it('refuses bad input in its own words: ranges, the kiosk limits, control characters, repeated options', async () => {
    const station = ['station', 'create', '--code', 'RANGE1', '--name', 'x', '--doors', '1:S'];
    const cases: [string[], RegExp][] = [
      [
        [...station, '--free-storage-hours', '2147483648'],
        /^error: --free-storage-hours must be a whole number from 1 to 8760, not "2147483648"\n$/,
      ],
      [
        [...station, '--idle-timeout', '99999999999'],
        /--idle-timeout must be a whole number from 1 to 3600/,
      ],
      [
        ['station', 'create', '--code', 'RANGE2', '--name', 'x', '--doors', '2147483648:S'],
        /door "2147483648:S" must be POSITION:SIZE\[:CODE\] with a whole position from 1 to 9999/,
      ],
      [
        [
          'door',
          'set',
          '--station',
          'X',
          '--position',
          '2147483648',
          '--service',
          'out',
          '--reason',
          'jammed',
        ],
        /--position must be a whole number from 1 to 9999/,
      ],
      [
        ['courier', 'create', '--number', '9'.repeat(65), '--name', 'Long Number'],
        /--number must be at most 64 characters \(the longest a kiosk accepts\)/,
      ],
      [['courier', 'create', '--number', ' 77', '--name', 'x'], /--number must not begin or end/],
      [
        ['courier', 'create', '--number', 'K-9', '--name', 'Evil\u001b[2J\u001b[31mName'],
        /--name must not contain control characters/,
      ],
      [['org', 'create', '--name', 'Shop\nTirana'], /--name must not contain control characters/],
      [
        ['org', 'create', '--name', 'Shop \u202eanariT'],
        /--name must not contain control characters/,
      ],
      [['org', 'create', '--name', 'a\u0000b'], /--name must not contain control characters/],
      [['org', 'create', '--name', '   '], /--name must not be empty/],
      [[...station, '--cabinet-sn', 'SN\t1'], /--cabinet-sn must not contain control characters/],
      [
        ['org', 'create', '--name', 'A', '--name', 'B'],
        /^error: org create: --name given more than once; give each option once\n$/,
      ],
      [
        ['courier', 'create', '--number', 'K-10', '--name', 'A', '--number', 'K-11'],
        /--number given more than once/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await admin(...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr, args.join(' ')).not.toMatch(
        /out of range for type|invalid input syntax/,
      );
    }
    // Nothing of any of them was stored.
    const [row] = await stack.sql<{ n: number }[]>`
      select (select count(*) from stations where code like 'RANGE%')
           + (select count(*) from couriers where number in ('K-9', 'K-10', 'K-11') or length(number) > 64)
           + (select count(*) from organizations where name in ('A', 'B') or name ~ '[[:cntrl:]]')::int as n`;
    expect(Number(row!.n)).toBe(0);
    // The limits themselves are allowed: a 64-character number signs in at a kiosk.
    const longest = '7'.repeat(64);
    await json('courier', 'create', '--number', longest, '--name', 'Drita Gashi');
    const scene = await stack.scene('1:S');
    const verified = await scene.terminal.api.post('/terminal/v1/courier/verify', {
      courierNo: longest,
    });
    expect(verified.body).toEqual({ ok: true, courierName: 'Drita Gashi' });
    await json(...station, '--free-storage-hours', '8760', '--max-storage-hours', '8760');
  });
});
