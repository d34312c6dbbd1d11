/**
 * Every operator command: its words, options (each with what it means) and what it does.
 * Help, parsing and the "which option is missing" errors all come from this one table.
 */
import { hasUnstorableCharacters } from '@locker/shared';
import type { Sql } from '../db/connect';
import * as admin from './commands';
import * as query from './queries';
import { MAX_DOOR_POSITION } from './doorSpec';
import { createSandboxOrganization } from './sandbox';

export interface OptionSpec {
  name: string;
  /** What to write after it in the usage line, e.g. ID. */
  value: string;
  help: string;
  required?: boolean;
}

export type Options = Record<string, string | undefined>;

export interface CommandSpec {
  /** Two words: `org create`. */
  name: string;
  summary: string;
  /** What it prints, for the help. */
  prints: string;
  options: OptionSpec[];
  run: (sql: Sql, o: Options) => Promise<object>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An option the command checked was given; its value, trimmed of nothing. */
const got = (o: Options, name: string) => o[name] as string;

function id(o: Options, name: string, listedBy: string): string {
  const value = got(o, name);
  if (!UUID.test(value))
    throw new admin.AdminError(
      `--${name} must be an id as \`${listedBy}\` prints it (a UUID), not "${value}"`,
    );
  return value;
}

/** A whole number from 1 to `max`: what the option means bounds it (and the database's integer). */
function positiveInt(o: Options, name: string, max: number): number | undefined {
  const value = o[name];
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max)
    throw new admin.AdminError(`--${name} must be a whole number from 1 to ${max}, not "${value}"`);
  return Number(value);
}

/** The longest courier number a kiosk accepts (CourierVerifyRequestSchema): longer can never sign in. */
const COURIER_NUMBER_MAX = 64;
/** As the kiosk's tracking number field. */
const TRACKING_NUMBER_MAX = 64;
const HOURS_MAX = 8760; // a year
const IDLE_TIMEOUT_MAX = 3600;

/**
 * Text an operator types that ends up on a screen, a label or a table: trimmed, not
 * empty, at most `max` characters, and no control characters (escape sequences, line
 * breaks, U+0000), direction overrides or unpaired surrogates.
 */
function label(o: Options, name: string, max: number): string {
  const given = got(o, name);
  const value = given.trim();
  const problem = labelProblem(value, max);
  if (problem) throw new admin.AdminError(`--${name} ${problem}`);
  return value;
}

export function labelProblem(value: string, max: number): string | undefined {
  if (value === '') return 'must not be empty';
  if ([...value].length > max) return `must be at most ${max} characters`;
  if (
    /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(value) ||
    hasUnstorableCharacters(value)
  )
    return 'must not contain control characters (line breaks, tabs, escape sequences) or direction marks';
  return undefined;
}

/** A courier number a kiosk can send: 1 to 64 characters, as typed on its keypad. */
function courierNumber(o: Options): string {
  const value = got(o, 'number');
  const problem = labelProblem(value, COURIER_NUMBER_MAX);
  if (problem)
    throw new admin.AdminError(
      `--number ${problem === `must be at most ${COURIER_NUMBER_MAX} characters` ? `must be at most ${COURIER_NUMBER_MAX} characters (the longest a kiosk accepts)` : problem}`,
    );
  if (value !== value.trim())
    throw new admin.AdminError('--number must not begin or end with a space');
  return value;
}

function optionalLabel(o: Options, name: string, max: number): string | undefined {
  return o[name] === undefined ? undefined : label(o, name, max);
}

function oneOf<T extends string>(o: Options, name: string, allowed: readonly T[]): T {
  const value = got(o, name);
  if (!allowed.includes(value as T))
    throw new admin.AdminError(`--${name} must be one of ${allowed.join(', ')}, not "${value}"`);
  return value as T;
}

const ORG = {
  name: 'org',
  value: 'ID',
  help: 'organization id, as pnpm admin org list prints it',
  required: true,
};
const STATION = {
  name: 'station',
  value: 'CODE',
  help: 'station code, e.g. PR01, as pnpm admin station list prints it',
  required: true,
};
const TERMINAL = {
  name: 'id',
  value: 'ID',
  help: 'terminal id, as pnpm admin terminal list prints it',
  required: true,
};
const COURIER = { name: 'number', value: 'NO', help: "the courier's number", required: true };

export const COMMANDS: CommandSpec[] = [
  {
    name: 'org list',
    summary: 'every organization',
    prints: '{"organizations":[{"id","name","webhookUrls","activeApiKeys","createdAt"}]}',
    options: [],
    run: (sql) => query.listOrganizations(sql),
  },
  {
    name: 'org show',
    summary: 'one organization',
    prints:
      '{"id","name","webhookEndpoints":[{"id","url","status"}],"returnWindowDays","activeApiKeys","shipments","createdAt"}',
    options: [ORG],
    run: (sql, o) => query.showOrganization(sql, id(o, 'org', 'pnpm admin org list')),
  },
  {
    name: 'org create',
    summary: 'a new organization (a shop) and its API key, printed once',
    prints: '{"id","name","apiKey"}',
    options: [{ name: 'name', value: 'NAME', help: 'its name', required: true }],
    run: (sql, o) => admin.createOrganization(sql, label(o, 'name', 200)),
  },
  {
    name: 'org create-sandbox',
    summary:
      'a sandbox organization: its API key ships only to its own simulated station; nothing reaches a real locker or phone',
    prints: '{"id","name","apiKey","sandbox","stations":[{"id","code","name"}]}',
    options: [{ name: 'name', value: 'NAME', help: 'its name', required: true }],
    run: (sql, o) => createSandboxOrganization(sql, label(o, 'name', 200)),
  },
  {
    name: 'org set-webhook',
    summary: 'adds a webhook endpoint (Standard Webhooks); its signing secret, printed once',
    prints: '{"id","webhookUrl","webhookSecret"}',
    options: [ORG, { name: 'url', value: 'URL', help: 'an http(s) URL', required: true }],
    // The shape decisions.md gives this command; the endpoint's id is in `org show`.
    run: async (sql, o) => {
      const {
        id: orgId,
        webhookUrl,
        webhookSecret,
      } = await admin.setOrganizationWebhook(
        sql,
        id(o, 'org', 'pnpm admin org list'),
        got(o, 'url'),
      );
      return { id: orgId, webhookUrl, webhookSecret };
    },
  },
  {
    name: 'org rotate-key',
    summary: 'a new API key; every earlier key stops working at once',
    prints: '{"id","apiKey"}',
    options: [ORG],
    run: (sql, o) => admin.rotateOrganizationKey(sql, id(o, 'org', 'pnpm admin org list')),
  },
  {
    name: 'station list',
    summary: 'every station with its door, occupied-door and terminal counts',
    prints: '{"stations":[{"id","code","name","doors","occupied","terminals"}]}',
    options: [],
    run: (sql) => query.listStations(sql),
  },
  {
    name: 'station show',
    summary: 'one station: settings, every door (service status, what it holds), terminals',
    prints:
      '{"id","code","name",…,"doors":[{"position","size","status","holds","trackingNumber"}],"terminals":[…]}',
    options: [STATION],
    run: (sql, o) => query.showStation(sql, got(o, 'station')),
  },
  {
    name: 'station create',
    summary: 'a new station and its doors',
    prints: '{"id","code","name","cabinetSn","doors"}',
    options: [
      { name: 'code', value: 'CODE', help: 'short unique code, e.g. PR01', required: true },
      { name: 'name', value: 'NAME', help: 'name shown to customers', required: true },
      {
        name: 'doors',
        value: 'SPEC',
        help: 'POSITION:SIZE[:CODE],… SIZE one of S M L XL or - (unknown), e.g. 1:S:A1,2:M:A2,3:L,4:XL,5:-',
        required: true,
      },
      { name: 'cabinet-sn', value: 'SN', help: "the cabinet's serial number (default: the code)" },
      {
        name: 'support-phone',
        value: 'PHONE',
        help: 'shown on the kiosk, international, e.g. +383 38 200 200',
      },
      { name: 'idle-timeout', value: 'SECONDS', help: 'kiosk back to its home screen after (60)' },
      { name: 'free-storage-hours', value: 'HOURS', help: 'free storage after deposit (72)' },
      {
        name: 'max-storage-hours',
        value: 'HOURS',
        help: 'then the parcel expires and goes back with the courier (168)',
      },
      {
        name: 'free-storage-reminder-hours',
        value: 'HOURS',
        help: 'SMS the recipient this long before free storage ends (24, if it fits)',
      },
      {
        name: 'expiry-reminder-hours',
        value: 'HOURS',
        help: 'SMS the recipient this long before the parcel expires (24, if it fits)',
      },
    ],
    run: (sql, o) =>
      admin.createStation(sql, {
        code: label(o, 'code', 32),
        name: label(o, 'name', 200),
        cabinetSn: optionalLabel(o, 'cabinet-sn', 64),
        doors: got(o, 'doors'),
        supportPhone: o['support-phone'],
        idleTimeoutSeconds: positiveInt(o, 'idle-timeout', IDLE_TIMEOUT_MAX),
        freeStorageHours: positiveInt(o, 'free-storage-hours', HOURS_MAX),
        maxStorageHours: positiveInt(o, 'max-storage-hours', HOURS_MAX),
        freeStorageReminderHours: positiveInt(o, 'free-storage-reminder-hours', HOURS_MAX),
        expiryReminderHours: positiveInt(o, 'expiry-reminder-hours', HOURS_MAX),
      }),
  },
  {
    name: 'door set',
    summary: 'takes a door out of service, or back in',
    prints: '{"station","position","status"}',
    options: [
      STATION,
      { name: 'position', value: 'N', help: "the door's position", required: true },
      { name: 'service', value: 'in|out', help: 'in or out of service', required: true },
    ],
    run: (sql, o) =>
      admin.setDoorService(
        sql,
        got(o, 'station'),
        positiveInt(o, 'position', MAX_DOOR_POSITION)!,
        oneOf(o, 'service', ['in', 'out']),
      ),
  },
  {
    name: 'terminal list',
    summary: 'every terminal: station, status, last heartbeat',
    prints:
      '{"terminals":[{"id","stationCode","status","revoked","lastHeartbeatAt","appVersion"}]}',
    options: [{ ...STATION, required: false, help: 'only those of this station' }],
    run: (sql, o) => query.listTerminals(sql, o.station),
  },
  {
    name: 'terminal show',
    summary: 'one terminal',
    prints: '{"id","stationCode","status","revoked","lastHeartbeatAt","appVersion","createdAt"}',
    options: [TERMINAL],
    run: (sql, o) => query.showTerminal(sql, id(o, 'id', 'pnpm admin terminal list')),
  },
  {
    name: 'terminal create',
    summary: 'a new terminal for a station and its device token, printed once',
    prints: '{"id","stationCode","token"}',
    options: [STATION],
    run: (sql, o) => admin.createTerminal(sql, got(o, 'station')),
  },
  {
    name: 'terminal set-status',
    summary: 'marks a terminal online, offline or disabled',
    prints: '{"id","status"}',
    options: [
      TERMINAL,
      { name: 'status', value: 'online|offline|disabled', help: 'the new status', required: true },
    ],
    run: (sql, o) =>
      admin.setTerminalStatus(
        sql,
        id(o, 'id', 'pnpm admin terminal list'),
        oneOf(o, 'status', ['online', 'offline', 'disabled']),
      ),
  },
  {
    name: 'terminal revoke',
    summary: 'its token stops working for good',
    prints: '{"id","revoked":true}',
    options: [TERMINAL],
    run: (sql, o) => admin.revokeTerminal(sql, id(o, 'id', 'pnpm admin terminal list')),
  },
  {
    name: 'courier list',
    summary: 'every courier',
    prints: '{"couriers":[{"id","number","name","active","createdAt"}]}',
    options: [],
    run: (sql) => query.listCouriers(sql),
  },
  {
    name: 'courier show',
    summary: 'one courier',
    prints: '{"id","number","name","active","createdAt"}',
    options: [COURIER],
    run: (sql, o) => query.showCourier(sql, courierNumber(o)),
  },
  {
    name: 'courier create',
    summary: 'a new courier',
    prints: '{"id","number","name"}',
    options: [COURIER, { name: 'name', value: 'NAME', help: 'full name', required: true }],
    run: (sql, o) => admin.createCourier(sql, courierNumber(o), label(o, 'name', 200)),
  },
  {
    name: 'courier deactivate',
    summary: 'the courier can no longer sign in at a kiosk',
    prints: '{"number","active":false}',
    options: [COURIER],
    run: (sql, o) => admin.deactivateCourier(sql, courierNumber(o)),
  },
  {
    name: 'shipment show',
    summary: 'a shipment by its tracking number: status, station, door, history',
    prints:
      '{"id","trackingNumber","status","stationCode","door",…,"events":[{"status","occurredAt"}]}',
    options: [{ name: 'tracking', value: 'NUMBER', help: 'its tracking number', required: true }],
    run: (sql, o) => query.showShipment(sql, label(o, 'tracking', TRACKING_NUMBER_MAX)),
  },
];

export function findCommand(words: string[]): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === words.join(' '));
}
