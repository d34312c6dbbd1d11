import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Sql } from '../db/connect';
import { transaction } from '../db/transaction';
import { hashSecret, newSecret } from '../domain/secrets';
import type { DestinationPolicy } from '../webhooks/address';
import { missingKeys, resealSecrets, type Keyring } from '../webhooks/secretKeys';
import { createEndpoint, endpointUrlProblem } from '../webhooks/endpoints';
import { parseDoorSpec, type DoorSpec } from './doorSpec';

/** A failure the operator can act on: printed as is, without a stack. */
export class AdminError extends Error {}

function one<T>(row: T | undefined, what: string): T {
  if (!row) throw new AdminError(`${what} not found`);
  return row;
}

export async function createOrganization(sql: Sql, name: string) {
  const apiKey = newSecret('sk');
  return sql.begin(async (tx) => {
    const [org] = await tx<{ id: string; name: string }[]>`
      insert into organizations (name) values (${name}) returning id, name`;
    const created = one(org, 'organization');
    await tx`insert into api_keys (organization_id, key_hash) values (${created.id}, ${hashSecret(apiKey)})`;
    return { id: created.id, name: created.name, apiKey };
  });
}

/**
 * Adds a webhook endpoint (Standard Webhooks); its secret is printed once, here. The URL
 * must point to a public address unless the policy allows internal ones.
 */
export async function setOrganizationWebhook(
  sql: Sql,
  orgId: string,
  url: string,
  settings: DestinationPolicy & { keyring: Keyring },
) {
  const problem = await endpointUrlProblem(url, settings);
  if (problem) throw new AdminError(`--url ${problem}`);
  const [org] = await sql<{ id: string }[]>`select id from organizations where id = ${orgId}`;
  const endpoint = await createEndpoint(
    sql,
    one(org, 'organization').id,
    { url },
    settings.keyring,
  );
  return { id: orgId, endpointId: endpoint.id, webhookUrl: url, webhookSecret: endpoint.secret };
}

/**
 * Every webhook signing secret encrypted again under the first key of the keyring
 * (WEBHOOK_SECRET_KEYS), those still in clear included: afterwards the other keys can go.
 */
export async function reencryptWebhookSecrets(sql: Sql, keyring: Keyring) {
  const missing = await missingKeys(sql, keyring);
  if (missing.length > 0) {
    throw new AdminError(
      `WEBHOOK_SECRET_KEYS must list the key ${missing.map((k) => `"${k}"`).join(', ')} too: secrets encrypted with it cannot be re-encrypted without it`,
    );
  }
  return { keyId: keyring[0]!.id, reencrypted: await resealSecrets(sql, keyring) };
}

/** A new key; every earlier key of the organization stops working at once. */
export async function rotateOrganizationKey(sql: Sql, orgId: string) {
  const apiKey = newSecret('sk');
  return sql.begin(async (tx) => {
    const [org] = await tx<
      { id: string }[]
    >`select id from organizations where id = ${orgId} for update`;
    const found = one(org, 'organization');
    await tx`update api_keys set revoked_at = now() where organization_id = ${found.id} and revoked_at is null`;
    await tx`insert into api_keys (organization_id, key_hash) values (${found.id}, ${hashSecret(apiKey)})`;
    return { id: found.id, apiKey };
  });
}

export interface StationInput {
  code: string;
  name: string;
  cabinetSn?: string | undefined;
  doors: string;
  supportPhone?: string | undefined;
  idleTimeoutSeconds?: number | undefined;
  freeStorageHours?: number | undefined;
  /** Hours after deposit until an uncollected parcel expires; at least a week by default. */
  maxStorageHours?: number | undefined;
  /** The recipient is reminded this long before free storage ends (24 when it fits). */
  freeStorageReminderHours?: number | undefined;
  /** The recipient is reminded this long before the parcel expires (24 when it fits). */
  expiryReminderHours?: number | undefined;
}

const DEFAULT_REMINDER_HOURS = 24;

/** A reminder's lead time: inside its window, or none when the default does not fit. */
function reminderHours(given: number | undefined, window: number, option: string): number | null {
  if (given === undefined) return DEFAULT_REMINDER_HOURS < window ? DEFAULT_REMINDER_HOURS : null;
  if (given >= window) {
    throw new AdminError(
      `--${option} (${given}) must be less than the ${window} hours it reminds of`,
    );
  }
  return given;
}

const DEFAULT_FREE_STORAGE_HOURS = 72;
const DEFAULT_MAX_STORAGE_HOURS = 168;

function storageHours(input: StationInput): { free: number; max: number } {
  const free = input.freeStorageHours ?? DEFAULT_FREE_STORAGE_HOURS;
  const max = input.maxStorageHours ?? Math.max(DEFAULT_MAX_STORAGE_HOURS, free);
  if (max < free) {
    throw new AdminError(
      `--max-storage-hours (${max}) must be at least --free-storage-hours (${free}): a parcel cannot expire inside its free window`,
    );
  }
  return { free, max };
}

/** The kiosk shows it for customers to call: a dialable number, kept as the operator wrote it. */
function supportPhone(given: string | undefined): string {
  if (given === undefined || given.trim() === '') return '';
  const phone = parsePhoneNumberFromString(given);
  if (!phone?.isValid()) {
    throw new AdminError(
      `--support-phone must be a dialable number in international form, e.g. +383 38 200 200, not "${given}"`,
    );
  }
  return given.trim();
}

export async function createStation(sql: Sql, input: StationInput) {
  const phone = supportPhone(input.supportPhone);
  let doors: DoorSpec[];
  try {
    doors = parseDoorSpec(input.doors);
  } catch (error) {
    throw new AdminError((error as Error).message);
  }
  const storage = storageHours(input);
  const reminders = {
    free: reminderHours(
      input.freeStorageReminderHours,
      storage.free,
      'free-storage-reminder-hours',
    ),
    expiry: reminderHours(input.expiryReminderHours, storage.max, 'expiry-reminder-hours'),
  };
  return sql.begin(async (tx) => {
    const [station] = await tx<{ id: string; code: string; name: string; cabinet_sn: string }[]>`
      insert into stations (code, name, cabinet_sn, support_phone, idle_timeout_seconds,
                            free_storage_hours, max_storage_hours,
                            free_storage_reminder_hours, expiry_reminder_hours)
      values (${input.code}, ${input.name}, ${input.cabinetSn ?? input.code}, ${phone},
              ${input.idleTimeoutSeconds ?? 60}, ${storage.free}, ${storage.max},
              ${reminders.free}, ${reminders.expiry})
      returning id, code, name, cabinet_sn`;
    const created = one(station, 'station');
    await tx`
      insert into doors ${tx(doors.map((d) => ({ station_id: created.id, position: d.position, size: d.size, code: d.code })))}`;
    return {
      id: created.id,
      code: created.code,
      name: created.name,
      cabinetSn: created.cabinet_sn,
      doors,
    };
  });
}

export async function setDoorService(
  sql: Sql,
  stationCode: string,
  position: number,
  service: 'in' | 'out',
) {
  // The station's lock first, as every path that changes a door (doorAssignment.ts).
  const [door] = await transaction(sql, async (tx) => {
    await tx`select lock_station(id) from stations where code = ${stationCode}`;
    return tx<{ position: number; out_of_service: boolean }[]>`
      update doors d set out_of_service = ${service === 'out'}
        from stations s
       where s.id = d.station_id and s.code = ${stationCode} and d.position = ${position}
      returning d.position, d.out_of_service`;
  });
  const found = one(door, `door ${position} of station ${stationCode}`);
  return {
    station: stationCode,
    position: found.position,
    status: found.out_of_service ? 'out_of_service' : 'in_service',
  };
}

export async function createTerminal(sql: Sql, stationCode: string) {
  const token = newSecret('tdev');
  const [terminal] = await sql<{ id: string }[]>`
    insert into terminals (station_id, token_hash)
    select id, ${hashSecret(token)} from stations where code = ${stationCode}
    returning id`;
  return { id: one(terminal, `station ${stationCode}`).id, stationCode, token };
}

export type TerminalStatus = 'online' | 'offline' | 'disabled';

export async function setTerminalStatus(sql: Sql, id: string, status: TerminalStatus) {
  const [terminal] = await sql<{ id: string; status: string }[]>`
    update terminals set status = ${status}, last_heartbeat_at = case when ${status} = 'online' then now() else last_heartbeat_at end
     where id = ${id} returning id, status`;
  return one(terminal, 'terminal');
}

export async function revokeTerminal(sql: Sql, id: string) {
  const [terminal] = await sql<{ id: string }[]>`
    update terminals set revoked_at = coalesce(revoked_at, now()) where id = ${id} returning id`;
  return { id: one(terminal, 'terminal').id, revoked: true as const };
}

export async function createCourier(sql: Sql, number: string, name: string) {
  const [courier] = await sql<{ id: string; number: string; name: string }[]>`
    insert into couriers (number, name) values (${number}, ${name}) returning id, number, name`;
  return one(courier, 'courier');
}

export async function deactivateCourier(sql: Sql, number: string) {
  const [courier] = await sql<{ number: string }[]>`
    update couriers set active = false where number = ${number} returning number`;
  return { number: one(courier, `courier ${number}`).number, active: false as const };
}
