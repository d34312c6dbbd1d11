import {
  OfflineDepositRequestSchema,
  type DepositResponse,
  type OfflinePickupsResponse,
} from '@locker/shared';
import { courierVerifierSalt, makeVerifier } from '@locker/shared/verifier';
import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Sql, TransactionSql } from '../db/connect';
import type { Logger } from '../logger';
import type { Services } from '../services';
import { transaction } from '../db/transaction';
import { readJson } from '../http/body';
import { problem } from '../http/problem';
import { validate } from '../http/validate';
import { stationOf } from './auth';
import { dayStart, utcDay } from './depositSetEtags';
import { placeOfflineDeposit } from './deposit';
import { lockStation } from './doorAssignment';
import { reportedTime } from './reportedTime';

// The service's side of a locker that works on its own through an outage
// (docs/terminal-extensions.md, "Offline operation"): the verifiers its kiosk keeps, and
// the alerts raised when a report made offline meets a parcel the service handled
// otherwise meanwhile.

function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * `GET /terminal/v1/offline/pickups`: the verifiers of the parcels awaiting pickup at the
 * terminal's station, with their door and the time until which the kiosk may hand them
 * out on its own. A parcel enters or leaves the set only with a change of its door's
 * contents, which bumps the station's cabinet version, and a verifier appears in it (the
 * worker makes it just after the deposit) with the station's verifier version (migration
 * 023): the two are the set's version and ETag, both known in memory, so an unchanged
 * poll is a 304 that costs the authentication (cached) and nothing more. A set read is
 * tagged with the verifier version of its own snapshot, so its ETag never claims more
 * than it holds.
 */
export function offlinePickups({
  sql,
  pickupSets,
}: Pick<Services, 'sql' | 'pickupSets'>): Middleware {
  return async (ctx) => {
    const station = stationOf(ctx.state.terminal);
    const tagOf = (verifiers: bigint) => {
      const version = `${station.cabinetVersion}.${verifiers}`;
      return { version, etag: `"pickups-${station.id.slice(0, 8)}-${version}"` };
    };
    ctx.set('Cache-Control', 'no-cache, no-store');
    const ifNoneMatch = ctx.get('If-None-Match');
    const known = pickupSets.of(station.id);
    if (known !== undefined && ifNoneMatch && etagMatches(ifNoneMatch, tagOf(known).etag)) {
      ctx.set('ETag', tagOf(known).etag);
      ctx.status = 304;
      return;
    }
    const begunAt = pickupSets.begin();
    const rows = await sql<
      {
        verifiers: string;
        id: string | null;
        position: number;
        verifier: string;
        collect_until: Date;
      }[]
    >`
      select coalesce((select version from station_verifier_versions
                        where station_id = ${station.id}), 0) as verifiers, p.*
        from (select) one
        left join lateral (
          select sh.id, d.position, sh.offline_verifier as verifier,
                 sh.deposited_at + make_interval(hours => s.max_storage_hours) as collect_until
            from shipments sh
            join stations s on s.id = sh.destination_station_id
            left join door_occupancy o on o.shipment_id = sh.id and o.kind = 'delivery'
            -- A parcel that joined another's door (issue 27) has that door and its code.
            left join door_shares ds on ds.shipment_id = sh.id
            join doors d on d.id = coalesce(o.door_id, ds.door_id)
           where sh.destination_station_id = ${station.id}
             and sh.status = 'ready_for_pickup'
             and sh.offline_verifier is not null) p on true
       order by p.position`;
    const verifiers = BigInt(rows[0]!.verifiers);
    pickupSets.note(station.id, verifiers, begunAt);
    const { version, etag } = tagOf(verifiers);
    ctx.set('ETag', etag);
    if (ifNoneMatch && etagMatches(ifNoneMatch, etag)) {
      ctx.status = 304;
      return;
    }
    const body: OfflinePickupsResponse = {
      version,
      pickups: rows
        .filter((r) => r.id !== null)
        .map((r) => ({
          shipmentId: r.id!,
          door: r.position,
          collectUntil: r.collect_until.toISOString(),
          verifier: r.verifier,
        })),
    };
    ctx.body = body;
  };
}

/** The alert kinds a report made offline can raise (log line `"alert":KIND`). */
export type OfflineAlertKind = 'offline_pickup_conflict' | 'offline_deposit_conflict';

/**
 * Raises an operator alert the way the service does today: an `alerts` row (in the
 * caller's transaction, when given) and a log line monitoring matches. The one place an
 * offline conflict is raised, so the operations API's alert lifecycle has one call to move.
 */
export async function raiseOfflineAlert(
  sql: Sql | TransactionSql,
  logger: Logger,
  alert: {
    kind: OfflineAlertKind;
    terminalId: string;
    stationId: string;
    /** The parcel it is about: one open alert per parcel, so no story overwrites another. */
    parcel: string;
    message: string;
  },
  fields: Record<string, unknown> = {},
): Promise<void> {
  // The alert lifecycle (migration 010) folds an alert into the open one of its condition,
  // keeping only the newest message: by default one per kind and terminal, which would
  // let a second parcel's conflict replace the first's story. Keyed by parcel instead; a
  // kiosk's resend of the same report still folds into it.
  await sql`
    insert into alerts (kind, terminal_id, station_id, condition_key, message)
    values (${alert.kind}, ${alert.terminalId}, ${alert.stationId},
            ${`${alert.kind}:${alert.parcel}`}, ${alert.message})`;
  logger.warn(
    { alert: alert.kind, terminal_id: alert.terminalId, station_id: alert.stationId, ...fields },
    alert.message,
  );
}

/**
 * A `collected: true` confirm that found no parcel awaiting collection: a repeat of a
 * confirm that got through (the parcel is `collected`: nothing to say), or a parcel the
 * service handled otherwise while the kiosk handed it out (a courier took it out, its
 * deposit was undone): then both stories go to operations, since the door was opened
 * and the parcel is gone while the service recorded something else. The answer stays the
 * spec's 404. Only a parcel that was at this station is considered.
 */
export async function noteConfirmConflict(
  { sql, logger }: Pick<Services, 'sql' | 'logger'>,
  terminal: { id: string; stationId: string; stationCode: string },
  shipmentId: string,
  at: Date,
): Promise<void> {
  const [row] = await sql<
    {
      tracking_number: string;
      status: string;
      status_at: Date;
      slot_no: number | null;
      door: number | null;
    }[]
  >`
    select sh.tracking_number, sh.status, sh.status_at, sh.slot_no,
           (select d.position from door_occupancy o join doors d on d.id = o.door_id
             where o.shipment_id = sh.id) as door
      from shipments sh
     where sh.id = ${shipmentId}
       and exists (select 1 from tracking_events t
                    where t.shipment_id = sh.id and t.status = 'ready_for_pickup'
                      and t.station_id = ${terminal.stationId})`;
  if (!row || row.status === 'collected') return;
  const service = `the service has it ${row.status} since ${row.status_at.toISOString()}${
    row.door === null ? '' : ` in door ${row.door}`
  }`;
  await raiseOfflineAlert(
    sql,
    logger,
    {
      kind: 'offline_pickup_conflict',
      terminalId: terminal.id,
      stationId: terminal.stationId,
      parcel: shipmentId,
      message: `parcel ${row.tracking_number} at ${terminal.stationCode}: the kiosk reports it collected at ${at.toISOString()}${
        row.slot_no === null ? '' : ` (its door was ${row.slot_no})`
      }; ${service}. Check the door and the parcel's story.`,
    },
    { shipment_id: shipmentId, tracking_number: row.tracking_number, kiosk_at: at },
  );
}

/** Couriers who deposited at a station this recently (in whole UTC days) may deposit there on its own. */
const COURIER_RECENT_DAYS = 90;

/**
 * `GET /terminal/v1/offline/deposits`: the station's doors as the service knows them, the
 * parcels it expects (tracking number and size, nothing personal) and verifiers of the
 * couriers who deposited here in the last 90 days (each made once, the first time it is
 * needed, and kept). Its ETag is a digest of the answer, which this instance keeps while
 * nothing the set is made of changes (`DepositSetEtags`): an unchanged poll is a 304
 * that costs the authentication (cached) and nothing more.
 */
export function offlineDeposits(services: Services): Middleware {
  const { sql, config, depositSets } = services;
  return async (ctx) => {
    const station = stationOf(ctx.state.terminal);
    const day = utcDay(Date.now());
    ctx.set('Cache-Control', 'no-cache, no-store');
    const ifNoneMatch = ctx.get('If-None-Match');
    const known = depositSets.of(station.id, station.cabinetVersion, day);
    if (known !== undefined && ifNoneMatch && etagMatches(ifNoneMatch, known)) {
      ctx.set('ETag', known);
      ctx.status = 304;
      return;
    }
    const read = depositSets.begin(station.id);
    const since = dayStart(day - COURIER_RECENT_DAYS);
    let set = await depositSet(sql, station.id, since);
    if (set.unverified.length > 0) {
      // A courier new here gets the one verifier they will have (a slow scrypt, once).
      const salt = courierVerifierSalt(config.pickupCodeSecret);
      for (const courier of set.unverified) {
        const verifier = await makeVerifier(courier.number, salt);
        await sql`
          update couriers set offline_verifier = ${verifier}
           where id = ${courier.id} and offline_verifier is null`;
      }
      set = await depositSet(sql, station.id, since);
    }
    const text = set.body;
    const etag = `"deposits-${createHash('sha256').update(text).digest('base64url').slice(0, 22)}"`;
    depositSets.keep(station.id, read, { etag, cabinetVersion: station.cabinetVersion, day });
    ctx.set('ETag', etag);
    if (ifNoneMatch && etagMatches(ifNoneMatch, etag)) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/json';
    ctx.body = text;
  };
}

/**
 * The deposit set's answer (OfflineDepositsResponse) as JSON text, written by PostgreSQL
 * in one statement and one snapshot (issue 28: three queries were three round trips and
 * three parsings for an answer the server only hashes and passes on), and the couriers
 * in it who have no verifier yet (their entries are null until made). Its couriers are
 * named by the station's recent deposits (one range of an index, migration 026), not by
 * trying every courier against the station's parcels of all time.
 */
async function depositSet(
  sql: Sql,
  stationId: string,
  since: Date,
): Promise<{ body: string; unverified: { id: string; number: string }[] }> {
  const [row] = await sql<{ body: string; unverified: { id: string; number: string }[] }[]>`
    with couriers_here as (
      select c.id, c.number, c.offline_verifier from couriers c
       where c.active and c.id in (
         select sh.deposited_by from shipments sh
          where sh.destination_station_id = ${stationId} and sh.deposited_by is not null
            and sh.deposited_at >= ${since}))
    select json_build_object(
             'doors', coalesce((
               select json_agg(json_build_object(
                        'position', d.position, 'size', d.size,
                        'free', not d.out_of_service and d.size is not null
                                and not exists (select 1 from door_occupancy o where o.door_id = d.id))
                      order by d.position)
                 from doors d where d.station_id = ${stationId}), '[]'),
             'expected', coalesce((
               select json_agg(json_build_object('trackingNumber', sh.tracking_number,
                                                 'size', sh.parcel_size)
                               order by sh.tracking_number)
                 from shipments sh
                where sh.destination_station_id = ${stationId} and sh.status = 'booked'), '[]'),
             'couriers', coalesce((
               select json_agg(c.offline_verifier order by c.id) from couriers_here c), '[]')
           )::text as body,
           coalesce((select json_agg(json_build_object('id', c.id, 'number', c.number))
                       from couriers_here c where c.offline_verifier is null), '[]') as unverified`;
  return row!;
}

/**
 * `POST /terminal/v1/offline/deposit`: a deposit the kiosk made on its own, with its door.
 * Recorded as a deposit into that door (the code drawn, stored, and only then its SMS
 * queued, once; its verifier made by the worker, as for any deposit), at `occurred_at`. When the service cannot record it (the door holds
 * something else as far as it knows; the parcel is no longer expected here), nothing is
 * recorded as a deposit, the door is taken out of service so nothing else is sent into
 * it, operations are alerted with both stories, and the answer is 404 like a repeat.
 */
export function offlineDeposit(services: Services): Middleware {
  const { sql, logger } = services;
  return async (ctx) => {
    const request = validate(OfflineDepositRequestSchema, await readJson(ctx));
    const at = reportedTime(request.occurred_at);
    const station = stationOf(ctx.state.terminal);
    const terminalId = ctx.state.terminal.id;
    const outcome = await transaction(sql, async (tx) => {
      const placed = await placeOfflineDeposit(tx, services, station, request, at, {
        log: ctx.state.log,
        terminalId,
      });
      if (placed.kind === 'deposited' || placed.kind === 'courier_not_verified') return placed;
      // The station's lock before the door changes below (the lock order; held already
      // when the deposit got as far as its door).
      await lockStation(tx, station.id);
      const [known] = await tx<
        { status: string; station_code: string | null; slot_no: number | null }[]
      >`
        select sh.status, st.code as station_code, sh.slot_no
          from shipments sh left join stations st on st.id = sh.destination_station_id
         where sh.tracking_number = ${request.trackingNumber}`;
      // A repeat of a deposit already recorded: nothing to say.
      if (
        known?.status === 'ready_for_pickup' &&
        known.station_code === station.code &&
        known.slot_no === request.door
      )
        return { kind: 'repeat' as const };
      // Why and by whom, for operations (an operator's earlier reason is not overwritten).
      const reason = `offline deposit of ${request.trackingNumber} the service could not record (reported by the kiosk)`;
      const [door] = await tx<{ tracking_number: string | null }[]>`
        update doors d set out_of_service = true,
               out_of_service_reason = case when out_of_service then out_of_service_reason else ${reason} end,
               out_of_service_by = case when out_of_service then out_of_service_by else 'terminal' end
         where d.station_id = ${station.id} and d.position = ${request.door}
        returning (select sh.tracking_number from door_occupancy o
                     join shipments sh on sh.id = o.shipment_id where o.door_id = d.id)`;
      const service =
        placed.kind === 'door_taken'
          ? `the service has door ${request.door} holding ${door?.tracking_number ?? 'a held return'}`
          : known
            ? `the service has the parcel ${known.status}${
                known.station_code ? ` for station ${known.station_code}` : ''
              }`
            : 'the service knows no such parcel';
      await raiseOfflineAlert(
        tx,
        logger,
        {
          kind: 'offline_deposit_conflict',
          terminalId,
          stationId: station.id,
          parcel: `${station.id}:${request.trackingNumber}`,
          message: `parcel ${request.trackingNumber} at ${station.code}: the kiosk reports it deposited by courier ${request.courierNo} into door ${request.door} at ${at.toISOString()}; ${service}. Door ${request.door} is taken out of service until someone checks it.`,
        },
        { tracking_number: request.trackingNumber, door: request.door, kiosk_at: at },
      );
      return placed;
    });
    if (outcome.kind !== 'deposited') {
      await services.cabinetChanged(station.id, null, { announce: true });
      throw problem.notFound('No parcel awaiting deposit can go into that door at this station.');
    }
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
  };
}
