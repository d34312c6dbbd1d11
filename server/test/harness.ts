import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Language, Size } from '@locker/shared';
import * as admin from '../src/admin/commands';
import type { ServerConfig } from '../src/config';
import type { Sql } from '../src/db/connect';
import { registerShipment } from '../src/shipments/register';
import { generateLinkKey, linkSigner } from '../src/link/signing';
import { createEndpoint } from '../src/webhooks/endpoints';
import { startServer, type RunningServer } from '../src/server';
import { freshDatabaseUrl } from './databases';

export interface HttpAnswer<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

/** A plain HTTP client: tests see exactly what a kiosk or a shop would. */
export function client(baseUrl: string, token?: string) {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed } as HttpAnswer;
  };
  return {
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      call('POST', path, body, headers),
    raw: call,
  };
}
export type Client = ReturnType<typeof client>;

export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 10_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Resolves once a statement is waiting for a station's lock (`lock_station`, or the
 * deposits' `lock_station_shared`), e.g. a request started while a test holds that lock
 * by hand (`select lock_station(…)`).
 */
export async function untilWaitingForStationLock(sql: Sql, count = 1): Promise<void> {
  await waitFor(async () => {
    const [waiting] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock'
         and wait_event = 'advisory' and query like '%lock_station%'
         and query not like '%pg_stat_activity%'`;
    return waiting!.n >= count;
  });
}

/**
 * Requests sent while a test holds the station's lock by hand: each has made whatever it
 * reads before the lock and waits there. `meanwhile` runs in the holder's transaction
 * once all of them wait; the holder then commits. Answers their answers, in order.
 */
export async function whileStationLocked<T>(
  sql: Sql,
  stationId: string,
  sends: (() => Promise<T>)[],
  meanwhile: (holder: Awaited<ReturnType<Sql['reserve']>>) => Promise<unknown> = async () => {},
): Promise<T[]> {
  const holder = await sql.reserve();
  let open = false;
  try {
    await holder`begin`;
    open = true;
    await holder`select lock_station(${stationId})`;
    const answers = Promise.all(sends.map((send) => send()));
    // Not an unhandled rejection while the holder's transaction is still open.
    answers.catch(() => {});
    await untilWaitingForStationLock(sql, sends.length);
    await meanwhile(holder);
    open = false;
    await holder`commit`;
    return await answers;
  } finally {
    // A test that failed midway leaves neither the station locked nor the connection
    // inside a transaction.
    if (open) await holder`rollback`.catch(() => {});
    holder.release();
  }
}

/**
 * Resolves once a statement whose text holds `query` (within its first kilobyte, as
 * `pg_stat_activity` keeps it) is waiting for a lock, other than one of the kind `notOn`
 * (`advisory`: a station's lock) when given.
 */
export async function untilWaitingForLock(
  sql: Sql,
  { query, notOn }: { query: string; notOn?: string },
): Promise<void> {
  await waitFor(async () => {
    const [waiting] = await sql`
      select 1 from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock'
         and wait_event is distinct from ${notOn ?? null}::text
         and position(${query} in query) > 0 and query not like '%pg_stat_activity%'`;
    return waiting;
  });
}

export interface SentSms {
  to: string;
  language: string;
  text: string;
}

/** A server on its own fresh database, with fixtures made the way an operator makes them. */
export async function startTestServer(overrides: Partial<ServerConfig> = {}) {
  const smsFile = path.join(mkdtempSync(path.join(tmpdir(), 'locker-sms-')), 'sms.jsonl');
  const databaseUrl = await freshDatabaseUrl();
  // Each test server signs link commands with a key of its own; kiosks pin its public half.
  const linkKey = generateLinkKey();
  const server: RunningServer = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl,
    smsTransport: `file:${smsFile}`,
    logLevel: 'silent',
    dbPoolSize: 10,
    linkSigningKey: linkKey.seed,
    development: true,
    // The tests' webhook receivers listen on loopback.
    webhookAllowPrivate: true,
    ...overrides,
  });
  const { sql } = server;
  const unique = () => randomBytes(4).toString('hex');

  const sentSms = (): SentSms[] => {
    try {
      return readFileSync(smsFile, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as SentSms);
    } catch {
      return [];
    }
  };

  const stack = {
    url: server.url,
    /** The public key kiosks of this server pin (`linkPublicKey`), unless overridden. */
    linkPublicKey: overrides.linkSigningKey
      ? linkSigner(overrides.linkSigningKey).publicKey
      : linkKey.publicKey,
    sql,
    server,
    databaseUrl,
    smsFile,
    sentSms,
    close: () => server.close(),
    anonymous: client(server.url),
    org: (name = `Shop ${unique()}`) => admin.createOrganization(sql, name),
    station: (doors = '1:S,2:M,3:L,4:XL', extra: Partial<admin.StationInput> = {}) =>
      admin.createStation(sql, { code: `ST-${unique()}`, name: 'Test Station', doors, ...extra }),
    courier: async (name = 'Arben Krasniqi') => admin.createCourier(sql, `C-${unique()}`, name),
    /** A terminal of the station and a client holding its device token. */
    terminal: async (stationCode: string) => {
      const t = await admin.createTerminal(sql, stationCode);
      return { ...t, api: client(server.url, t.token) };
    },
    shipment: async (
      organizationId: string,
      stationId: string,
      options: { size?: Size; name?: string; language?: Language; phone?: string } = {},
    ) => {
      const shipment = await registerShipment(sql, organizationId, {
        destinationStationId: stationId,
        parcelSize: options.size ?? 'S',
        recipientName: options.name ?? 'Drita Gashi Berisha',
        recipientPhone:
          options.phone ?? `+3834${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`,
        recipientLanguage: options.language ?? 'en',
      });
      if (!shipment) throw new Error('station not found');
      return shipment;
    },
    /** Gives the organization a webhook endpoint (nothing listens: deliveries stay queued). */
    subscribeWebhooks: (organizationId: string) =>
      createEndpoint(
        sql,
        organizationId,
        { url: 'http://127.0.0.1:9/hook' },
        server.config.webhookSecretKeys,
      ),
    /** Types of the events recorded for a shipment, oldest first. */
    webhookTypesOf: async (shipmentId: string) =>
      (
        await sql<{ type: string }[]>`
          select type from events where shipment_id = ${shipmentId} order by xid, seq`
      ).map((row) => row.type),
    /** The pickup code of the SMS sent to `phone`, once the outbox has delivered it. */
    pickupCodeSentTo: (phone: string) =>
      waitFor(() => {
        const sms = sentSms().find((m) => m.to === phone);
        return sms ? /\b(\d{8})\b/.exec(sms.text)?.[1] : undefined;
      }),
  };

  /**
   * A station with one terminal, a courier and an organization: the usual scene of a
   * terminal test. `deposit` books a shipment and deposits it, answering its pickup code;
   * `collected`, `returned` and `takeOut` carry a parcel further along its life.
   */
  const scene = async (doors?: string, extra: Partial<admin.StationInput> = {}) => {
    const org = await stack.org();
    const station = await stack.station(doors, extra);
    const terminal = await stack.terminal(station.code);
    const courier = await stack.courier();
    const deposit = async (options: Parameters<typeof stack.shipment>[2] = {}) => {
      const shipment = await stack.shipment(org.id, station.id, options);
      const answer = await terminal.api.post('/terminal/v1/deposit', {
        courierNo: courier.number,
        trackingNumber: shipment.tracking_number,
      });
      if (answer.status !== 200)
        throw new Error(`deposit answered ${answer.status}: ${answer.text}`);
      const code = await stack.pickupCodeSentTo(shipment.recipient_phone);
      return { shipment, door: answer.body.door as number, code };
    };
    /** A parcel deposited, then picked up with its code and confirmed collected. */
    const collected = async (options: Parameters<typeof stack.shipment>[2] = {}) => {
      const { shipment, code } = await deposit(options);
      const picked = await terminal.api.post('/terminal/v1/pickup', { code });
      await terminal.api.post('/terminal/v1/door/confirm', {
        shipmentId: picked.body.shipmentId,
        collected: true,
      });
      return shipment;
    };
    /** A collected parcel brought back: its return started and confirmed deposited. */
    const returned = async (options: Parameters<typeof stack.shipment>[2] = {}) => {
      const shipment = await collected(options);
      const started = await terminal.api.post('/terminal/v1/return', {
        trackingNumber: shipment.tracking_number,
      });
      if (started.status !== 200)
        throw new Error(`return answered ${started.status}: ${started.text}`);
      await terminal.api.post('/terminal/v1/return/confirm', {
        returnId: started.body.returnId,
        deposited: true,
      });
      return { shipment, door: started.body.door as number };
    };
    /** The scene's courier takes a deposited return out of its door. */
    const takeOut = (trackingNumber: string) =>
      terminal.api.post('/terminal/v1/courier/returns/collected', {
        courierNo: courier.number,
        trackingNumber,
      });
    return { org, station, terminal, courier, deposit, collected, returned, takeOut };
  };

  return { ...stack, scene };
}
export type TestStack = Awaited<ReturnType<typeof startTestServer>>;

/**
 * The test server of a whole test file, on its own fresh database: started before the
 * file's first test (before any `beforeAll` registered after this call) and closed after
 * its last. The object answered is filled in once the server is up, so tests use it as
 * they would `startTestServer`'s answer: `const stack = useTestServer();` at the top of
 * the file, then `stack.scene()` in the tests.
 */
export function useTestServer(overrides: Partial<ServerConfig> = {}): TestStack {
  const stack = {} as TestStack;
  beforeAll(async () => {
    Object.assign(stack, await startTestServer(overrides));
  });
  afterAll(async () => {
    // Unset when the server never started: that failure is the one to report.
    if ('close' in stack) await stack.close();
  });
  return stack;
}

// The server's testing entry (`@locker/server/testing`): what tests outside the server
// (the kiosk's, the journeys in test/) and the kiosk's benchmark use to run and drive a
// server. The kiosk reaches the server through nothing else (eslint.config.js).
export { freshDatabaseUrl } from './databases';
export { startServer, type RunningServer } from '../src/server';
export { REPO_ROOT } from '../src/config';
// The operator's commands, as fixtures make them: by name, or all as `admin`.
export * from '../src/admin/commands';
export * as admin from '../src/admin/commands';
/** The stored form of a pickup code, for fixtures that load parcels in bulk. */
export { pickupCodeHash } from '../src/domain/secrets';
export { benchDatabase } from '../bench/database';
export { generateLinkKey, linkSigner } from '../src/link/signing';
export { LINK_PATH } from '../src/link/hub';
// Operators as the operations interface's tests make them: set up, signed in, TOTP enrolled.
export { opsClient, signedInOperator, testClock, secretOf, PASSWORD } from './opsClient';
export { createOperator } from '../src/operators/accounts';
export { setDoorHeights, setStationPlace } from '../src/admin/placeCommands';
export { cliActor } from '../src/operators/audit';
export { totpCode } from '../src/operators/totp';
// The operations benchmarks' fleet and server process (the console's benchmark too).
export { seedOpsFleet } from '../bench/opsSeed';
export { benchServer } from '../bench/harness';
/** Kiosk releases as the operator's CLI stores and rolls them out (the update bench). */
export { storeRelease, setRollout } from '../src/updates/releases';
