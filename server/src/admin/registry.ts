/**
 * Every operator command: its words, options (each with what it means) and what it does.
 * Help, parsing and the "which option is missing" errors all come from this one table.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { OPERATOR_ROLES, ReleaseManifestSchema, hasUnstorableCharacters } from '@locker/shared';
import type { ServerConfig } from '../config';
import type { Sql } from '../db/connect';
import * as admin from './commands';
import * as query from './queries';
import { MAX_DOOR_POSITION } from './doorSpec';
import { createSandboxOrganization } from './sandbox';
import { acknowledgeAlert, listAlerts, resolveAlert } from '../alerts/lifecycle';
import { audit, type Actor } from '../operators/audit';
import {
  createOperator,
  deactivateOperator,
  listOperators,
  resetOperator,
} from '../operators/accounts';
import { listAudit } from '../opsApi/auditLog';
import * as couriers from '../opsApi/couriers';
import { setDoorService } from '../opsApi/doors';
import * as organizations from '../opsApi/organizations';
import * as terminals from '../opsApi/terminals';
import { createLogger } from '../logger';
import { LinkCommands } from '../link/commands';
import { presentCommand, requestRemoteOpen } from '../link/remoteOpen';
import { generateLinkKey, linkSigner } from '../link/signing';
import { PLACE_COMMANDS } from './placeCommands';
import { rolloutView, setRollout, storeRelease } from '../updates/releases';

export interface OptionSpec {
  name: string;
  /** What to write after it in the usage line, e.g. ID. */
  value: string;
  help: string;
  required?: boolean;
  /** May be given several times (or comma-separated); the values arrive joined by commas. */
  multiple?: boolean;
}

export type Options = Record<string, string | undefined>;

export interface CommandSpec {
  /** Two words: `org create`. */
  name: string;
  summary: string;
  /** What it prints, for the help. */
  prints: string;
  options: OptionSpec[];
  /**
   * `actor` is the OS user (role `cli`). Commands that change something go through the
   * same code as the operations API, which writes the audit row, or through `audited`.
   */
  run: (sql: Sql, o: Options, actor: Actor, config: ServerConfig) => Promise<object>;
}

/** Audits a command that has no operations-API twin: one row, its outcome included. */
function audited(
  action: string,
  target: (o: Options) => string | undefined,
  run: CommandSpec['run'],
): CommandSpec['run'] {
  return async (sql, o, actor, config) => {
    const entry = { action, targetType: action.split('.')[0]!, target: target(o) ?? null };
    try {
      const result = await run(sql, o, actor, config);
      await audit(sql, actor, { ...entry, outcome: 'ok' });
      return result;
    } catch (error) {
      const message = error instanceof Error ? error.message.slice(0, 300) : String(error);
      await audit(sql, actor, { ...entry, outcome: 'failed', detail: { error: message } });
      throw error;
    }
  };
}

/** Every page of a cursor-paginated list, for the CLI (which prints one object). */
async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; next_cursor: string | null }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    items.push(...next.items);
    cursor = next.next_cursor ?? undefined;
  } while (cursor);
  return items;
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
const QR = {
  name: 'qr',
  value: 'FILE.svg',
  help: 'also write the enrolment code as a QR code (SVG) to this file, for the kiosk scanner',
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
    run: async (sql, o, actor) => {
      const created = await organizations.createOrganization(sql, actor, label(o, 'name', 200));
      return {
        id: created.organization.id,
        name: created.organization.name,
        apiKey: created.api_key,
      };
    },
  },
  {
    name: 'org create-sandbox',
    summary:
      'a sandbox organization: its API key ships only to its own simulated station; nothing reaches a real locker or phone',
    prints: '{"id","name","apiKey","sandbox","stations":[{"id","code","name"}]}',
    options: [{ name: 'name', value: 'NAME', help: 'its name', required: true }],
    run: audited(
      'organization.create_sandbox',
      (o) => o.name,
      (sql, o) => createSandboxOrganization(sql, label(o, 'name', 200)),
    ),
  },
  {
    name: 'org set-webhook',
    summary: 'adds a webhook endpoint (Standard Webhooks); its signing secret, printed once',
    prints: '{"id","endpointId","webhookUrl","webhookSecret"}',
    options: [ORG, { name: 'url', value: 'URL', help: 'an http(s) URL', required: true }],
    // decisions.md's shape with the endpoint's id added (docs/webhooks.md promises it):
    // rotating, enabling or deleting the endpoint needs it.
    run: audited(
      'organization.set_webhook',
      (o) => o.org,
      (sql, o, _actor, config) =>
        admin.setOrganizationWebhook(sql, id(o, 'org', 'pnpm admin org list'), got(o, 'url'), {
          allowPrivate: config.webhookAllowPrivate,
          keyring: config.webhookSecretKeys,
        }),
    ),
  },
  {
    name: 'webhooks rotate-key',
    summary:
      'encrypts every webhook signing secret again under the first key of WEBHOOK_SECRET_KEYS (then the others can go)',
    prints: '{"keyId","reencrypted"}',
    options: [],
    run: audited(
      'webhooks.rotate_key',
      () => undefined,
      (sql, _o, _actor, config) => admin.reencryptWebhookSecrets(sql, config.webhookSecretKeys),
    ),
  },
  {
    name: 'org rotate-key',
    summary: 'a new API key; every earlier key stops working at once',
    prints: '{"id","apiKey"}',
    options: [ORG],
    run: async (sql, o, actor) => {
      const orgId = id(o, 'org', 'pnpm admin org list');
      const issued = await organizations.issueApiKey(sql, actor, orgId, true);
      return { id: orgId, apiKey: issued.api_key };
    },
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
    run: audited(
      'station.create',
      (o) => o.code,
      (sql, o) =>
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
    ),
  },
  {
    name: 'door set',
    summary: 'takes a door out of service, or back in, saying why (audited)',
    prints: '{"station","position","status","reason","since","by"}',
    options: [
      STATION,
      { name: 'position', value: 'N', help: "the door's position", required: true },
      { name: 'service', value: 'in|out', help: 'in or out of service', required: true },
      {
        name: 'reason',
        value: 'TEXT',
        help: 'why, kept with the door and in the audit log',
        required: true,
      },
    ],
    run: async (sql, o, actor) => {
      const { station_code, door } = await setDoorService(sql, actor, {
        station: got(o, 'station'),
        position: positiveInt(o, 'position', MAX_DOOR_POSITION)!,
        inService: oneOf(o, 'service', ['in', 'out']) === 'in',
        reason: label(o, 'reason', 500),
      });
      return {
        station: station_code,
        position: door.position,
        status: door.out_of_service ? 'out_of_service' : 'in_service',
        reason: door.out_of_service?.reason ?? null,
        since: door.out_of_service?.since ?? null,
        by: door.out_of_service?.by ?? null,
      };
    },
  },
  {
    name: 'door open',
    summary:
      'opens one door remotely over the live link (the running server delivers it); waits up to 15 s for the outcome (audited, limited like the API)',
    prints: '{"id","station_code","door","status","outcome",…}',
    options: [
      STATION,
      { name: 'position', value: 'N', help: "the door's position", required: true },
      { name: 'reason', value: 'TEXT', help: 'why, kept in the audit log', required: true },
    ],
    run: async (sql, o, actor, config) => {
      const commands = new LinkCommands(
        sql,
        config.linkSigningKey ? linkSigner(config.linkSigningKey) : undefined,
        createLogger('silent'),
      );
      const unlisten = await commands.listen();
      try {
        const result = await requestRemoteOpen(
          { sql, commands, logger: createLogger('silent') },
          actor,
          {
            station: got(o, 'station'),
            position: positiveInt(o, 'position', MAX_DOOR_POSITION)!,
            reason: got(o, 'reason'),
          },
        );
        if (result.kind === 'approval_required')
          return { approval_required: result.approvalId, why: result.why };
        const done = await commands.waitForOutcome(result.command.id, 15_000);
        return presentCommand(done ?? result.command);
      } finally {
        await unlisten();
      }
    },
  },
  {
    name: 'link keygen',
    summary:
      'a new Ed25519 key for the live link: the seed for LINK_SIGNING_KEY, the public key for kiosks (linkPublicKey)',
    prints: '{"seed","publicKey"}',
    options: [],
    run: () => Promise.resolve(generateLinkKey()),
  },
  {
    name: 'terminal list',
    summary: 'every terminal: station, status, last heartbeat',
    prints:
      '{"terminals":[{"id","stationCode","status","revoked","lastHeartbeatAt","appVersion","linkConnected"}]}',
    options: [
      { ...STATION, required: false, help: 'only those of this station' },
      {
        name: 'status',
        value: 'online|offline|disabled|revoked',
        help: 'only those with this status (revoked ones have their own)',
      },
    ],
    run: async (sql, o, actor) => {
      const status = o.status
        ? oneOf(o, 'status', ['online', 'offline', 'disabled', 'revoked'])
        : undefined;
      const items = await allPages((cursor) =>
        terminals.listTerminals(sql, actor, { station: o.station, status, cursor, limit: 200 }),
      );
      return {
        terminals: items.map((t) => ({
          id: t.id,
          stationCode: t.station_code,
          status: t.status,
          revoked: t.revoked,
          lastHeartbeatAt: t.last_heartbeat_at,
          appVersion: t.app_version,
          linkConnected: t.link.connected,
          createdAt: t.created_at,
        })),
      };
    },
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
    summary:
      'a new terminal for a station: its one-time enrolment code (24 h) for the kiosk, and a device token for a kiosk set up by hand, printed once',
    prints: '{"id","stationCode","token","enrolmentCode","enrolmentExpiresAt"}',
    options: [STATION, QR],
    run: async (sql, o, actor, config) => {
      const created = await terminals.createTerminal(
        sql,
        actor,
        got(o, 'station'),
        config.pickupCodeSecret,
      );
      if (o.qr) writeFileSync(o.qr, created.enrolment.qr_svg);
      return {
        id: created.terminal.id,
        stationCode: created.terminal.station_code,
        token: created.token,
        enrolmentCode: created.enrolment.code,
        enrolmentExpiresAt: created.enrolment.expires_at,
      };
    },
  },
  {
    name: 'terminal enrol-code',
    summary:
      'a new one-time enrolment code (24 h) for a terminal, printed once; its earlier codes stop working, its token works until the kiosk enrols',
    prints: '{"id","stationCode","enrolmentCode","enrolmentExpiresAt"}',
    options: [TERMINAL, QR],
    run: async (sql, o, actor, config) => {
      const issued = await terminals.newEnrolmentCode(
        sql,
        actor,
        id(o, 'id', 'pnpm admin terminal list'),
        config.pickupCodeSecret,
      );
      if (o.qr) writeFileSync(o.qr, issued.enrolment.qr_svg);
      return {
        id: issued.terminal.id,
        stationCode: issued.terminal.station_code,
        enrolmentCode: issued.enrolment.code,
        enrolmentExpiresAt: issued.enrolment.expires_at,
      };
    },
  },
  {
    name: 'terminal set-status',
    summary: 'marks a terminal online, offline or disabled',
    prints: '{"id","status"}',
    options: [
      TERMINAL,
      { name: 'status', value: 'online|offline|disabled', help: 'the new status', required: true },
    ],
    run: audited(
      'terminal.set_status',
      (o) => o.id,
      (sql, o) =>
        admin.setTerminalStatus(
          sql,
          id(o, 'id', 'pnpm admin terminal list'),
          oneOf(o, 'status', ['online', 'offline', 'disabled']),
        ),
    ),
  },
  {
    name: 'terminal revoke',
    summary: 'its token stops working for good',
    prints: '{"id","revoked":true}',
    options: [TERMINAL],
    run: async (sql, o, actor) => {
      const revoked = await terminals.changeTerminal(
        sql,
        actor,
        id(o, 'id', 'pnpm admin terminal list'),
        'revoke',
      );
      return { id: revoked.id, revoked: true as const };
    },
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
    run: async (sql, o, actor) => {
      const c = await couriers.createCourier(sql, actor, {
        number: courierNumber(o),
        name: label(o, 'name', 200),
      });
      return { id: c.id, number: c.number, name: c.name };
    },
  },
  {
    name: 'courier deactivate',
    summary: 'the courier can no longer sign in at a kiosk',
    prints: '{"number","active":false}',
    options: [COURIER],
    run: async (sql, o, actor) => {
      const c = await couriers.deactivateCourier(sql, actor, courierNumber(o));
      return { number: c.number, active: false as const };
    },
  },
  {
    name: 'shipment show',
    summary: 'a shipment by its tracking number: status, station, door, history',
    prints:
      '{"id","trackingNumber","status","stationCode","door",…,"events":[{"status","occurredAt"}]}',
    options: [{ name: 'tracking', value: 'NUMBER', help: 'its tracking number', required: true }],
    run: (sql, o) => query.showShipment(sql, label(o, 'tracking', TRACKING_NUMBER_MAX)),
  },
  {
    name: 'operator create',
    summary: 'a new operator; prints their one-time set-up link (password, then TOTP)',
    prints:
      '{"operator":{"id","email","role","stations"},"setup_token","setup_link","setup_expires_at"}',
    options: [
      { name: 'email', value: 'EMAIL', help: 'their e-mail, the sign-in name', required: true },
      { name: 'role', value: OPERATOR_ROLES.join('|'), help: 'what they may do', required: true },
      {
        name: 'station',
        value: 'CODE',
        help: 'a station a technician works on (repeat for several)',
        multiple: true,
      },
    ],
    run: (sql, o, actor, config) =>
      createOperator(
        sql,
        actor,
        {
          email: got(o, 'email'),
          role: oneOf(o, 'role', OPERATOR_ROLES),
          stations: o.station ? o.station.split(',').map((c) => c.trim()) : undefined,
        },
        config.opsPublicUrl,
      ),
  },
  {
    name: 'operator list',
    summary: 'every operator: role, stations, set up or not',
    prints:
      '{"operators":[{"id","email","role","stations","set_up","second_factor_enrolled","active"}]}',
    options: [],
    run: async (sql, _o, actor) => ({ operators: await listOperators(sql, actor) }),
  },
  {
    name: 'operator deactivate',
    summary: 'the operator can no longer sign in; their sessions end at once',
    prints: '{"id","email","active":false,…}',
    options: [{ name: 'email', value: 'EMAIL', help: 'their e-mail', required: true }],
    run: (sql, o, actor) => deactivateOperator(sql, actor, got(o, 'email')),
  },
  {
    name: 'operator reset',
    summary: 'clears password and second factor, ends sessions, prints a new set-up link',
    prints: '{"operator","setup_token","setup_link","setup_expires_at"}',
    options: [{ name: 'email', value: 'EMAIL', help: 'their e-mail', required: true }],
    run: (sql, o, actor, config) => resetOperator(sql, actor, got(o, 'email'), config.opsPublicUrl),
  },
  {
    name: 'alert list',
    summary: 'alerts: the active ones (most severe, then oldest, first) or by status',
    prints:
      '{"alerts":[{"id","kind","severity","status","station_code","door","occurrences",…}],"nextCursor"}',
    options: [
      {
        name: 'status',
        value: 'active|open|acknowledged|resolved|all',
        help: 'which (active: open and acknowledged; the default)',
      },
      { ...STATION, required: false, help: 'only those of this station' },
      { name: 'kind', value: 'KIND', help: 'only this kind, e.g. terminal_offline' },
      { name: 'cursor', value: 'CURSOR', help: 'the nextCursor of the previous page' },
    ],
    run: async (sql, o, actor) => {
      const page = await listAlerts(sql, actor, {
        status: o.status
          ? oneOf(o, 'status', ['active', 'open', 'acknowledged', 'resolved', 'all'] as const)
          : undefined,
        station: o.station,
        kind: o.kind,
        cursor: o.cursor,
        limit: 200,
      });
      return { alerts: page.items, nextCursor: page.next_cursor };
    },
  },
  {
    name: 'alert ack',
    summary: 'acknowledges an open alert (someone is on it), with a note',
    prints: '{"id","status":"acknowledged","acknowledged":{"at","by","note"},…}',
    options: [
      {
        name: 'id',
        value: 'ID',
        help: 'alert id, as pnpm admin alert list prints it',
        required: true,
      },
      { name: 'note', value: 'TEXT', help: 'what is being done' },
    ],
    run: (sql, o, actor) =>
      acknowledgeAlert(sql, actor, got(o, 'id'), optionalLabel(o, 'note', 1000)),
  },
  {
    name: 'alert resolve',
    summary: 'resolves an alert, with a note',
    prints: '{"id","status":"resolved","resolved":{"at","by","note","resolution"},…}',
    options: [
      {
        name: 'id',
        value: 'ID',
        help: 'alert id, as pnpm admin alert list prints it',
        required: true,
      },
      { name: 'note', value: 'TEXT', help: 'what was done' },
    ],
    run: (sql, o, actor) => resolveAlert(sql, actor, got(o, 'id'), optionalLabel(o, 'note', 1000)),
  },
  {
    name: 'audit list',
    summary: 'the audit log, newest first (read-only everywhere)',
    prints:
      '{"entries":[{"id","at","actor","role","action","target","reason","outcome"}],"nextCursor"}',
    options: [
      { name: 'actor', value: 'WHO', help: 'an operator e-mail, or cli:USER' },
      {
        name: 'action',
        value: 'ACTION',
        help: 'an action or its group, e.g. door or door.service_out',
      },
      { name: 'from', value: 'TIME', help: 'ISO time, inclusive' },
      { name: 'to', value: 'TIME', help: 'ISO time, exclusive' },
      { name: 'cursor', value: 'CURSOR', help: 'the nextCursor of the previous page' },
    ],
    run: async (sql, o) => {
      for (const name of ['from', 'to'] as const) {
        if (o[name] !== undefined && Number.isNaN(Date.parse(o[name])))
          throw new admin.AdminError(`--${name} must be an ISO time, e.g. 2026-01-31T00:00:00Z`);
      }
      const page = await listAudit(sql, {
        actor: o.actor,
        action: o.action,
        from: o.from,
        to: o.to,
        cursor: o.cursor,
        limit: 500,
      });
      return { entries: page.items, nextCursor: page.next_cursor };
    },
  },
  // Issue 26: kiosk releases, signed on the operator's workstation, rolled out in rings.
  {
    name: 'release upload',
    summary:
      'stores a kiosk release made and signed by `pnpm --filter @locker/kiosk release` (its manifest and bundle); a version is never replaced',
    prints: '{"version","size","sha256"}',
    options: [
      { name: 'manifest', value: 'FILE', help: 'release.json as signed', required: true },
      { name: 'bundle', value: 'FILE', help: 'the bundle (.tar.gz) it names', required: true },
    ],
    run: (sql, o, actor) => {
      let manifest;
      try {
        manifest = ReleaseManifestSchema.parse(
          JSON.parse(readFileSync(got(o, 'manifest'), 'utf8')),
        );
      } catch (error) {
        throw new Error(
          `--manifest ${o.manifest} is not a signed release manifest: ${(error as Error).message}`,
        );
      }
      return storeRelease(sql, actor, manifest, readFileSync(got(o, 'bundle')));
    },
  },
  {
    name: 'release assign',
    summary:
      'rolls a release out: the pilot stations at once, then a stable share of every kiosk (--percent), or --percent 100 for all; replaces the rollout under way',
    prints: '{"version","pilotStations","percent","terminals":[…]}',
    options: [
      { name: 'version', value: 'VERSION', help: 'an uploaded release', required: true },
      {
        name: 'stations',
        value: 'CODE',
        help: 'pilot stations (ring 1)',
        multiple: true,
      },
      { name: 'percent', value: 'N', help: 'share of every kiosk, 0-100 (ring 2; 100: all)' },
    ],
    run: (sql, o, actor) => {
      const percent = o.percent === undefined ? 0 : Number(o.percent);
      if (!Number.isInteger(percent) || percent < 0 || percent > 100)
        throw new Error('--percent must be a whole number from 0 to 100');
      return setRollout(sql, actor, {
        version: got(o, 'version'),
        pilotStations: o.stations ? o.stations.split(',').filter(Boolean) : [],
        percent,
      });
    },
  },
  {
    name: 'release status',
    summary: 'the rollout under way: its rings, and what every kiosk runs and last reported',
    prints: '{"version","pilotStations","percent","terminals":[…]}',
    options: [],
    run: (sql) => rolloutView(sql),
  },
  // Issue 27: a station's place, booking settings, door heights, a parcel's extension.
  ...PLACE_COMMANDS.map(({ action, target, ...command }) => ({
    ...command,
    run: audited(action, (o) => o[target], command.run),
  })),
];

export function findCommand(words: string[]): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === words.join(' '));
}
