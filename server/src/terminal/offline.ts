import type { OfflinePickupsResponse } from '@locker/shared';
import { makeVerifier, stationVerifierSalt } from '@locker/shared/verifier';
import type { Middleware } from 'koa';
import type { Sql, TransactionSql } from '../db/connect';
import type { Logger } from '../logger';
import type { Services } from '../services';
import { stationOf } from './auth';

// The service's side of a locker that works on its own through an outage
// (docs/terminal-extensions.md, "Offline operation"): the verifiers its kiosk keeps, and
// the alerts raised when a report made offline meets a parcel the service handled
// otherwise meanwhile.

/** A pickup code's offline verifier, salted with its station's key (`@locker/shared/verifier`). */
export function offlineVerifier(
  { config }: Pick<Services, 'config'>,
  stationId: string,
  code: string,
): Promise<string> {
  return makeVerifier(code, stationVerifierSalt(config.pickupCodeSecret, stationId));
}

function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * `GET /terminal/v1/offline/pickups`: the verifiers of the parcels awaiting pickup at the
 * terminal's station, with their door and the time until which the kiosk may hand them
 * out on its own. A parcel enters or leaves the set only with a change of its door's
 * contents, which bumps the station's cabinet version: that is the set's version and
 * ETag, so an unchanged poll is a 304 that costs the authentication (cached) and nothing
 * more.
 */
export function offlinePickups(sql: Sql): Middleware {
  return async (ctx) => {
    const station = stationOf(ctx.state.terminal);
    const etag = `"pickups-${station.id.slice(0, 8)}-${station.cabinetVersion}"`;
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', 'no-cache, no-store');
    const ifNoneMatch = ctx.get('If-None-Match');
    if (ifNoneMatch && etagMatches(ifNoneMatch, etag)) {
      ctx.status = 304;
      return;
    }
    const rows = await sql<
      { id: string; position: number; verifier: string; collect_until: Date }[]
    >`
      select sh.id, d.position, sh.offline_verifier as verifier,
             sh.deposited_at + make_interval(hours => s.max_storage_hours) as collect_until
        from shipments sh
        join stations s on s.id = sh.destination_station_id
        join door_occupancy o on o.shipment_id = sh.id and o.kind = 'delivery'
        join doors d on d.id = o.door_id
       where sh.destination_station_id = ${station.id}
         and sh.status = 'ready_for_pickup'
         and sh.offline_verifier is not null
       order by d.position`;
    const body: OfflinePickupsResponse = {
      version: station.cabinetVersion,
      pickups: rows.map((r) => ({
        shipmentId: r.id,
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
  alert: { kind: OfflineAlertKind; terminalId: string; stationId: string; message: string },
  fields: Record<string, unknown> = {},
): Promise<void> {
  await sql`
    insert into alerts (kind, terminal_id, station_id, message)
    values (${alert.kind}, ${alert.terminalId}, ${alert.stationId}, ${alert.message})`;
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
      message: `parcel ${row.tracking_number} at ${terminal.stationCode}: the kiosk reports it collected at ${at.toISOString()}${
        row.slot_no === null ? '' : ` (its door was ${row.slot_no})`
      }; ${service}. Check the door and the parcel's story.`,
    },
    { shipment_id: shipmentId, tracking_number: row.tracking_number, kiosk_at: at },
  );
}
