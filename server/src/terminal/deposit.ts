import {
  CourierVerifyRequestSchema,
  DepositRequestSchema,
  type CourierVerifyResponse,
  type DepositResponse,
  type Size,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { Sql, TransactionSql } from '../db/connect';
import { activeCourier, courierNotVerified } from './couriers';
import { reportedTime, noteClockSkewAfter, type Reporter } from './reportedTime';
import { newPickupCode, pickupCodeHash } from '../domain/secrets';
import { linkTokenHash, newLinkToken, sealCode } from '../domain/recipientLink';
import { recipientPageUrl } from '../recipient/page';
import type { Services } from '../services';
import { readJson } from '../http/body';
import { ProblemError, problem } from '../http/problem';
import { retried, type WriteDb } from '../db/transaction';
import { CabinetFullProblem } from './cabinetFull';
import { validate } from '../http/validate';
import { SANDBOX_SMS, type QueuedSms } from '../sms/channel';
import { pickupCodeMessage } from '../sms/messages';
import { insertMessages } from '../outbox/outbox';
import { shipmentEventCtes } from '../webhooks/events';
import { shipmentColumns, type ShipmentView } from '../shipments/view';
import { stationOf, type TerminalStation } from './auth';
import {
  lockedWrite,
  namedDoorQuery,
  smallestFreeDoorQuery,
  type StationLockMode,
} from './doorAssignment';
import { sealForVerifier } from './verifierSeal';

/** Unknown and deactivated couriers get the same plain `ok: false`, with no reason. */
export function courierVerify({ sql }: Services): Middleware {
  return async (ctx) => {
    const { courierNo } = validate(CourierVerifyRequestSchema, await readJson(ctx));
    stationOf(ctx.state.terminal);
    const courier = await activeCourier(sql, courierNo);
    const body: CourierVerifyResponse = {
      ok: Boolean(courier),
      courierName: courier?.name ?? null,
    };
    ctx.body = body;
  };
}

/**
 * What the claim read: the courier (when asked) and the parcel awaiting deposit, as the
 * merchant's event will show it (ShipmentView; its columns null when there is none).
 */
interface Claim extends Omit<ShipmentView, 'id'> {
  courier_id: string | null;
  /** Null: no parcel awaits deposit here under that tracking number. */
  id: string | null;
  /** The shipment row's version (its xmin): the deposit writes only the row read here. */
  row_version: string;
  sandbox: boolean;
  previous_at: Date | null;
}

type Claimed = Claim & { id: string };

export type DepositOutcome =
  | { kind: 'deposited'; door: number; trackingNumber: string; cabinetVersion: string | null }
  | { kind: 'courier_not_verified' }
  | { kind: 'not_found' }
  | { kind: 'cabinet_full'; size: Size }
  /** Offline deposits only: the door the kiosk chose holds something, per the service. */
  | { kind: 'door_taken' };

/** A fresh pickup code with its stored forms: the HMAC, the worker's seal, the link's. */
export interface DrawnCode {
  code: string;
  hash: Buffer;
  /**
   * The code sealed for the verifier worker (verifierSeal.ts), which makes its offline
   * verifier, a deliberately slow scrypt, off the request path (issue 28).
   */
  forVerifier: Buffer;
  /** The recipient's page: its token (in the SMS only), its hash, the code sealed with it. */
  link: { token: string; hash: Buffer; sealed: Buffer };
}

/** Draws a code for the parcel and makes its stored forms: microseconds, no scrypt. */
export function drawCode(services: Pick<Services, 'config'>, shipmentId: string): DrawnCode {
  const code = newPickupCode();
  const token = newLinkToken();
  const secret = services.config.pickupCodeSecret;
  return {
    code,
    hash: pickupCodeHash(secret, code),
    forVerifier: sealForVerifier(secret, shipmentId, code),
    link: { token, hash: linkTokenHash(token), sealed: sealCode(token, code) },
  };
}

/**
 * Reads the courier and the parcel awaiting deposit, without a lock: what the door choice
 * needs to know before it takes the station's lock (the parcel's id for its code's seal,
 * its size, the recipient's SMS). Rows read here may be stale by the time the lock is
 * held: `assignDoor` checks the parcel again, under the lock.
 */
async function claim(
  tx: Sql | TransactionSql,
  stationId: string,
  trackingNumber: string,
  courierNo: string | null,
): Promise<Claim> {
  const [row] = await tx<Claim[]>`
    select c.id as courier_id, ${shipmentColumns(tx)}, sh.xmin::text as row_version,
           coalesce(o.sandbox, false) as sandbox,
           (select max(t.occurred_at) from tracking_events t where t.shipment_id = sh.id) as previous_at
      from stations s
      left join couriers c on c.number = ${courierNo} and c.active
      left join shipments sh on sh.tracking_number = ${trackingNumber}
                            and sh.destination_station_id = s.id and sh.status = 'booked'
      left join organizations o on o.id = sh.organization_id
     where s.id = ${stationId}`;
  // The terminal's station exists (authentication found it); a deleted one is a 500.
  if (!row) throw new ProblemError('internal_error');
  return row;
}

interface Assignment {
  door: number | null;
  code_taken: boolean;
  still_booked: boolean;
  /** The parcel was deposited, its event recorded. */
  deposited: boolean;
}

/**
 * One statement, after the lock (so its snapshot sees every path that held the station
 * exclusively before; a deposit beside it keeps to the door it locked): the smallest free
 * door, the parcel marked deposited with its code, the door occupied, the
 * code SMS queued (set aside unsent for a sandbox), and the merchant's event with its
 * deliveries; nothing of it when the door, the parcel or a free code is missing, or when
 * the parcel or its station changed since the claim read them (the event shows what the
 * claim read: the caller claims again). Sent as it is called (`execute`), so in a
 * transaction sent in one write it goes before the COMMIT (`inOneWrite`).
 */
function assignDoor(
  tx: TransactionSql,
  station: TerminalStation,
  parcel: Claimed,
  courierId: string | null,
  code: DrawnCode & { sms: QueuedSms },
  at: Date,
  /** The door a kiosk chose on its own (offline): that one, if free; else the rule's. */
  position: number | undefined,
  /** Beside other deposits (the door locked, one another holds passed over), or alone. */
  mode: StationLockMode,
): Promise<Assignment> {
  // What queueSms writes, here to save its round trips.
  const aside = parcel.sandbox ? SANDBOX_SMS : null;
  const queued = insertMessages(
    tx,
    'sms',
    tx`select null::uuid as organization_id, deposited.id as shipment_id,
              ${tx.json(code.sms as never)}::jsonb as payload, ${aside}::text as set_aside
         from deposited`,
  );
  const asDeposited: ShipmentView = { ...parcel, status: 'ready_for_pickup' };
  const statement = tx<Assignment[]>`
    with door as (${
      position === undefined
        ? smallestFreeDoorQuery(tx, station.id, parcel.parcel_size, {
            shipmentId: parcel.id,
            accessible: parcel.accessible_door,
            lock: mode === 'deposit',
          })
        : namedDoorQuery(tx, station.id, position)
    }),
    code_taken as (
      select 1 from shipments
       where destination_station_id = ${station.id} and status = 'ready_for_pickup'
         and pickup_code_hash = ${code.hash}),
    deposited as (
      update shipments sh
         set status = 'ready_for_pickup', status_at = ${at}, slot_no = (select position from door),
             pickup_code_hash = ${code.hash}, offline_verifier = null,
             verifier_code_sealed = ${code.forVerifier},
             recipient_link_hash = ${code.link.hash}, pickup_code_sealed = ${code.link.sealed},
             deposited_at = ${at}, deposited_by = ${courierId},
             updated_at = now()
        from stations s
       -- Still booked here: a reroute (issue 27) may have moved it while this waited for
       -- the lock, and a booking moved elsewhere is no longer this station's to fill.
       where sh.id = ${parcel.id} and sh.status = 'booked' and s.id = sh.destination_station_id
         and sh.destination_station_id = ${station.id}
         -- As the claim read them, so the event built from that read is true.
         and sh.xmin = ${parcel.row_version}::xid
         and s.code = ${parcel.station_code} and s.cabinet_sn = ${parcel.cabinet_sn}
         and exists (select 1 from door) and not exists (select 1 from code_taken)
         -- Only under the station's lock, in its transaction: set by underStationLock's
         -- statement, so a door statement sent after its COMMIT by mistake (inOneWrite)
         -- records nothing.
         and current_setting('locker.cabinet_announce', true) = 'after_commit'
      returning sh.id, sh.organization_id, sh.slot_no, sh.updated_at),
    occupied as (
      insert into door_occupancy (door_id, station_id, kind, shipment_id, since)
      select door.id, ${station.id}, 'delivery', deposited.id, ${at} from door, deposited
      returning 1),
    -- The booking's reservation (issue 27), if any, is used up: the door it held, or
    -- another when that one left service meanwhile. A door a kiosk filled on its own is
    -- no longer anyone's to hold: another booking's reservation of it goes, and that
    -- parcel gets the rule's door at its deposit, as when its door leaves service.
    reservation_used as (
      delete from door_reservations r using deposited
       where r.shipment_id = deposited.id or r.door_id = (select id from door)),
    queued as (${queued}),
    ${shipmentEventCtes(tx, asDeposited, 'shipment.ready_for_pickup', 'deposited')}
    select exists (select 1 from deposited) as deposited,
           (select position from door) as door,
           exists (select 1 from code_taken) as code_taken,
           exists (select 1 from shipments where id = ${parcel.id} and status = 'booked'
                     and destination_station_id = ${station.id}) as still_booked`.execute();
  return statement.then(([row]) => row!);
}

/**
 * The deposit: read, then lock and assign (with the merchant's event). With `courierNo`
 * the courier is checked in the read; null (the sandbox's simulated courier, or one
 * checked already) skips it.
 */
async function depositParcel(
  /**
   * In the caller's transaction (offline deposits, the sandbox): the claim, then the lock
   * and the door's statement. A kiosk's deposit online: two round trips, the claim on its
   * own (the door's statement checks the parcel's row again), then the door's transaction
   * in one write (BEGIN, the station's lock, the door's statement, the cabinet version it
   * makes, COMMIT).
   */
  db: WriteDb,
  services: Services,
  station: TerminalStation,
  courier: { number: string } | { id: string | null },
  trackingNumber: string,
  at: Date,
  how: {
    reporter?: Reporter | undefined;
    /**
     * A deposit the kiosk made on its own: into this door, and a courier deactivated since
     * the kiosk checked them does not undo it (the parcel is in the door).
     */
    offline?: { door: number };
    /**
     * `deposit`: beside other deposits at the station; `exclusive`: alone there (offline
     * deposits, whose conflicts change a door; the sandbox; a deposit asking again).
     */
    mode: StationLockMode;
  },
): Promise<DepositOutcome> {
  const { reporter, offline, mode } = how;
  // The claim's and the clock-skew alert's connection: the caller's transaction, or the pool.
  const reader = 'tx' in db ? db.tx : db.sql;
  // Claimed again when the parcel or its station changed between the read and the lock.
  for (let claims = 1; ; claims++) {
    const claimed = await claim(
      reader,
      station.id,
      trackingNumber,
      'number' in courier ? courier.number : null,
    );
    const courierId = 'number' in courier ? claimed.courier_id : courier.id;
    if ('number' in courier && !courierId && !offline) return { kind: 'courier_not_verified' };
    if (!claimed.id) return { kind: 'not_found' };
    const parcel: Claimed = { ...claimed, id: claimed.id };
    // A code no parcel awaiting collection here has: drawn again on the rare clash.
    const fresh = drawCode(services, parcel.id);
    const sms = pickupCodeMessage(
      { ...parcel, station_name: station.name },
      fresh.code,
      station.freeStorageHours,
      recipientPageUrl(services.config, fresh.link.token),
    );
    // Under the station's lock, in the deposits' mode unless alone (doorAssignment.ts),
    // sent with the assignment: four couriers at one station choose their doors side by
    // side (and commit one after another).
    const code = { ...fresh, sms };
    // Both modes bump the version as the door is filled (migration 028).
    const [assigned, cabinetVersion] = await lockedWrite(
      db,
      station.id,
      (tx) => assignDoor(tx, station, parcel, courierId, code, at, offline?.door, mode),
      mode,
    );
    // Another deposit of the same parcel may have won while this one waited for the lock.
    if (!assigned.deposited && !assigned.still_booked) return { kind: 'not_found' };
    if (assigned.door === null)
      return offline ? { kind: 'door_taken' } : { kind: 'cabinet_full', size: parcel.parcel_size };
    if (!assigned.deposited) {
      if (assigned.code_taken || claims < 5) continue;
      throw new Error('deposit found a door and a free code but recorded nothing, five times');
    }
    await noteClockSkewAfter(
      db,
      reporter,
      { shipmentId: parcel.id, at, stationId: station.id },
      parcel.previous_at,
    );
    return {
      kind: 'deposited',
      door: assigned.door,
      trackingNumber: parcel.tracking_number,
      // Online, read in its transaction; in the caller's, none: read after its commit
      // (by `cabinetChanged`).
      cabinetVersion,
    };
  }
}

/**
 * The deposit itself, once the courier is known (null: the sandbox's simulated courier).
 * Shared with the sandbox, so a simulated deposit is exactly a kiosk's.
 */
export async function placeParcel(
  tx: TransactionSql,
  services: Services,
  station: TerminalStation,
  courierId: string | null,
  trackingNumber: string,
  at: Date,
  /** The terminal that reported it; none for the sandbox, whose clock is the server's. */
  reporter?: Reporter,
): Promise<DepositOutcome> {
  return depositParcel({ tx }, services, station, { id: courierId }, trackingNumber, at, {
    reporter,
    mode: 'exclusive',
  });
}

/**
 * A deposit the kiosk made on its own, into the door it chose (terminal/offline.ts): the
 * deposit's own transaction, with that door instead of the rule's choice.
 */
export function placeOfflineDeposit(
  tx: TransactionSql,
  services: Services,
  station: TerminalStation,
  request: { courierNo: string; trackingNumber: string; door: number },
  at: Date,
  reporter: Reporter,
): Promise<DepositOutcome> {
  return depositParcel(
    { tx },
    services,
    station,
    { number: request.courierNo },
    request.trackingNumber,
    at,
    // Alone at the station: a door it cannot have is taken out of service (offline.ts).
    { reporter, offline: { door: request.door }, mode: 'exclusive' },
  );
}

/**
 * One call: verify the courier, pick the smallest free door that fits, record the
 * deposit and queue the pickup-code SMS, under the station's lock in the deposits' mode,
 * in two round trips: the read, then the door's transaction in one write with the
 * cabinet version its commit makes. The code's offline verifier is made afterwards by
 * the verifier worker, nudged here (verifierWorker.ts).
 */
export function deposit(services: Services): Middleware {
  return async (ctx) => {
    const request = validate(DepositRequestSchema, await readJson(ctx));
    const at = reportedTime(request.occurred_at);
    const station = stationOf(ctx.state.terminal);
    // Run again whole (a fresh read, a fresh code) when it lost a race (`retried`).
    const attempt = (mode: StationLockMode) =>
      retried(() =>
        depositParcel(
          { sql: services.sql },
          services,
          station,
          { number: request.courierNo },
          request.trackingNumber,
          at,
          { reporter: { log: ctx.state.log, terminalId: ctx.state.terminal.id }, mode },
        ),
      );
    // Beside other deposits, a door passed over may be held by one that will not keep it
    // (a retry of this very parcel, one rolling back): finding none, the deposit asks again
    // alone, once every deposit in flight here has ended, and answers what that finds.
    let outcome = await attempt('deposit');
    if (outcome.kind === 'cabinet_full') outcome = await attempt('exclusive');
    switch (outcome.kind) {
      case 'courier_not_verified':
        throw courierNotVerified();
      case 'not_found':
        throw problem.notFound(
          'No parcel awaiting deposit has that tracking number at this station.',
        );
      case 'cabinet_full':
        throw new CabinetFullProblem(outcome.size);
      case 'door_taken':
        throw new Error('an online deposit never names its door');
      case 'deposited': {
        await services.cabinetChanged(station.id, outcome.cabinetVersion, { announce: true });
        services.nudge.sms();
        services.nudge.webhooks();
        services.nudge.verifiers();
        const body: DepositResponse = {
          ok: true,
          door: outcome.door,
          trackingNumber: outcome.trackingNumber,
        };
        ctx.body = body;
        return;
      }
      default: {
        const unreachable: never = outcome;
        throw new Error(`unhandled deposit outcome ${JSON.stringify(unreachable)}`);
      }
    }
  };
}
