import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../config';
import { connect, type Sql } from '../db/connect';
import { hashSecret } from '../domain/secrets';
import { freshDatabaseUrl } from '../../test/databases';

const run = promisify(execFile);
let databaseUrl: string;
let sql: Sql;

/** `pnpm admin ...` exactly as an operator types it, from the repository root. */
async function pnpmAdmin(...args: string[]) {
  try {
    const { stdout, stderr } = await run('pnpm', ['admin', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The whole of stdout must be one JSON object. */
async function json(...args: string[]): Promise<Record<string, any>> {
  const result = await pnpmAdmin(...args);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(result.stdout) as Record<string, any>;
}

beforeAll(async () => {
  databaseUrl = await freshDatabaseUrl();
  sql = connect(databaseUrl, { max: 1 });
});
afterAll(() => sql.end());

describe('pnpm admin', () => {
  it('creates an organization, station, terminal and courier, each printing one JSON object', async () => {
    const org = await json('org', 'create', '--name', 'Shop Tirana');
    expect(Object.keys(org).sort()).toEqual(['apiKey', 'id', 'name']);
    const [key] = await sql`select key_hash from api_keys where organization_id = ${org.id}`;
    expect(Buffer.compare(key!.key_hash, hashSecret(org.apiKey))).toBe(0);

    const station = await json(
      'station',
      'create',
      '--code',
      'TIR1',
      '--name',
      'Tirana Blloku',
      '--doors',
      '1:S:A1,2:M:A2,3:L,4:XL,5:-',
    );
    expect(station).toMatchObject({ code: 'TIR1', name: 'Tirana Blloku', cabinetSn: 'TIR1' });
    expect(station.doors).toEqual([
      { position: 1, size: 'S', code: 'A1' },
      { position: 2, size: 'M', code: 'A2' },
      { position: 3, size: 'L', code: null },
      { position: 4, size: 'XL', code: null },
      { position: 5, size: null, code: null },
    ]);
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
      await json('door', 'set', '--station', 'TIR1', '--position', '2', '--service', 'out'),
    ).toEqual({
      station: 'TIR1',
      position: 2,
      status: 'out_of_service',
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

    const webhook = await json(
      'org',
      'set-webhook',
      '--org',
      org.id,
      '--url',
      'https://shop.example/hooks/locker',
    );
    expect(webhook).toMatchObject({
      id: org.id,
      webhookUrl: 'https://shop.example/hooks/locker',
      webhookSecret: expect.any(String),
    });
    const rotated = await json('org', 'rotate-key', '--org', org.id);
    expect(rotated.apiKey).not.toBe(org.apiKey);
    const keys =
      await sql`select revoked_at is null as active from api_keys where organization_id = ${org.id} order by created_at`;
    expect(keys.map((k) => k.active)).toEqual([false, true]);
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
      [['door', 'set', '--station', 'NOPE', '--position', '1', '--service', 'out'], /not found/],
      [['terminal', 'revoke', '--id', 'not-a-uuid'], /UUID/],
      [['courier', 'create', '--number', 'K-1'], /--name is required/],
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
      [['nonsense'], /usage: pnpm admin/],
    ];
    for (const [args, message] of cases) {
      const result = await pnpmAdmin(...args);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
    }
    await json('courier', 'create', '--number', 'K-2', '--name', 'A');
    const duplicate = await pnpmAdmin('courier', 'create', '--number', 'K-2', '--name', 'B');
    expect(duplicate.code).not.toBe(0);
    expect(duplicate.stderr).toMatch(/already exists/);
  });
});
