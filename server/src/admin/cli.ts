import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import type { Sql } from '../db/connect';
import { migrate } from '../db/migrate';
import { openDatabase } from '../server';
import * as admin from './commands';

const USAGE = `usage: pnpm admin <command> [options]   (each prints one JSON object)

  org create --name NAME
  org set-webhook --org ID --url URL
  org rotate-key --org ID
  station create --code CODE --name NAME [--cabinet-sn SN] --doors SPEC
                 [--support-phone PHONE] [--idle-timeout SECONDS] [--free-storage-hours HOURS]
                 [--max-storage-hours HOURS]
  door set --station CODE --position N --service in|out
  terminal create --station CODE
  terminal set-status --id ID --status online|offline|disabled
  terminal revoke --id ID
  courier create --number NO --name NAME
  courier deactivate --number NO

SPEC: comma list of POSITION:SIZE[:CODE], SIZE one of S M L XL or - (unknown),
      e.g. 1:S:A1,2:M:A2,3:L,4:XL,5:-`;

type Options = Record<string, string | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (value === undefined || value === '') throw new admin.AdminError(`--${name} is required`);
  return value;
}

function optionalInt(options: Options, name: string): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new admin.AdminError(`--${name} must be a positive whole number`);
  return n;
}

function oneOf<T extends string>(options: Options, name: string, allowed: readonly T[]): T {
  const value = required(options, name);
  if (!allowed.includes(value as T))
    throw new admin.AdminError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

const COMMANDS: Record<string, (sql: Sql, o: Options) => Promise<object>> = {
  'org create': (sql, o) => admin.createOrganization(sql, required(o, 'name')),
  'org set-webhook': (sql, o) =>
    admin.setOrganizationWebhook(sql, required(o, 'org'), required(o, 'url')),
  'org rotate-key': (sql, o) => admin.rotateOrganizationKey(sql, required(o, 'org')),
  'station create': (sql, o) =>
    admin.createStation(sql, {
      code: required(o, 'code'),
      name: required(o, 'name'),
      cabinetSn: o['cabinet-sn'],
      doors: required(o, 'doors'),
      supportPhone: o['support-phone'],
      idleTimeoutSeconds: optionalInt(o, 'idle-timeout'),
      freeStorageHours: optionalInt(o, 'free-storage-hours'),
      maxStorageHours: optionalInt(o, 'max-storage-hours'),
    }),
  'door set': (sql, o) =>
    admin.setDoorService(
      sql,
      required(o, 'station'),
      optionalInt(o, 'position') ?? NaN,
      oneOf(o, 'service', ['in', 'out']),
    ),
  'terminal create': (sql, o) => admin.createTerminal(sql, required(o, 'station')),
  'terminal set-status': (sql, o) =>
    admin.setTerminalStatus(
      sql,
      required(o, 'id'),
      oneOf(o, 'status', ['online', 'offline', 'disabled']),
    ),
  'terminal revoke': (sql, o) => admin.revokeTerminal(sql, required(o, 'id')),
  'courier create': (sql, o) =>
    admin.createCourier(sql, required(o, 'number'), required(o, 'name')),
  'courier deactivate': (sql, o) => admin.deactivateCourier(sql, required(o, 'number')),
};

const OPTION_NAMES = [
  'name',
  'org',
  'url',
  'code',
  'cabinet-sn',
  'doors',
  'support-phone',
  'idle-timeout',
  'free-storage-hours',
  'max-storage-hours',
  'station',
  'position',
  'service',
  'id',
  'status',
  'number',
];

/** Database errors an operator can cause, in words an operator can act on. */
function explain(error: unknown): string {
  if (error instanceof admin.AdminError) return error.message;
  const pg = error as { code?: string; detail?: string };
  if (pg.code === '22P02') return 'an ID must be a UUID as printed when it was created';
  if (pg.code === '23505') return `already exists: ${pg.detail ?? 'a unique value is taken'}`;
  if (pg.code === '23514' || pg.code === '23502')
    return `not allowed: ${pg.detail ?? 'a value is out of range'}`;
  return error instanceof Error ? error.message : String(error);
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stderr.write(USAGE + '\n');
    return 0;
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: Object.fromEntries(OPTION_NAMES.map((n) => [n, { type: 'string' as const }])),
  });
  const command = COMMANDS[positionals.slice(0, 2).join(' ')];
  if (!command || positionals.length !== 2) {
    process.stderr.write(USAGE + '\n');
    return 2;
  }
  const { sql, embedded } = await openDatabase({ ...loadConfig(), dbPoolSize: 2 });
  try {
    await migrate(sql);
    const result = await command(sql, values);
    process.stdout.write(JSON.stringify(result) + '\n');
    return 0;
  } finally {
    await sql.end({ timeout: 5 });
    await embedded?.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${explain(error)}\n`);
    process.exit(1);
  },
);
