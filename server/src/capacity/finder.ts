import {
  StationFinderQuerySchema,
  type FoundStation,
  type FreeDoors,
  type OpeningHours,
  type Size,
  type StationFinderResult,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { Sql, TransactionSql } from '../db/connect';
import { sizesFitting } from '../domain/sizes';
import { ProblemError } from '../http/problem';
import { validate } from '../http/validate';
import type { Services } from '../services';
import { withinReach } from '../terminal/doorAssignment';

export interface Point {
  latitude: number;
  longitude: number;
}

export interface FinderOptions {
  /** The organization asking: a sandbox sees only its own stations, others only real ones. */
  organizationId: string;
  /** Capacity as of this moment (reservations lapsing before it count free). */
  asOf: Date;
  /** Only stations with a free door this size fits. */
  size?: Size | undefined;
  /** Only stations with such a door within reach (with `size`, of that size). */
  accessible?: boolean | undefined;
  limit: number;
  /** After this station in the order (its chord and id, from a cursor). */
  after?: { chord: number; id: string } | undefined;
  /** Leave this station out (the full one a 409 lists alternatives for). */
  except?: string | undefined;
}

interface Row {
  id: string;
  code: string;
  name: string;
  address: string | null;
  latitude: number;
  longitude: number;
  opening_hours: OpeningHours;
  step_free: boolean | null;
  chord: number;
  distance_m: number;
  free: FreeDoors;
  free_accessible: FreeDoors;
}

export type Found = FoundStation & { chord: number };

/**
 * A door free as of `asOf`: in service, of a known size, holding nothing, not reserved
 * by a booking that lasts past `asOf`. `d` is the door.
 */
function doorFree(db: Sql | TransactionSql, asOf: Date) {
  return db`not d.out_of_service and d.size is not null
    and not exists (select 1 from door_occupancy o where o.door_id = d.id)
    and not exists (select 1 from door_reservations r where r.door_id = d.id and r.until > ${asOf})`;
}

type Fragment = ReturnType<typeof withinReach>;

const counts = (db: Sql | TransactionSql, extra: Fragment) => db`json_build_object(
  'S', count(*) filter (where d.size = 'S' ${extra}), 'M', count(*) filter (where d.size = 'M' ${extra}),
  'L', count(*) filter (where d.size = 'L' ${extra}), 'XL', count(*) filter (where d.size = 'XL' ${extra}))`;

/**
 * The stations nearest `near`, nearest first (ties by id), with their free doors per
 * size. The GiST index on `station_point(latitude, longitude)` (migration 016) walks the
 * stations outward from `near` (a KNN scan), so a page costs the stations it reads,
 * whatever the network's size; capacity is counted for the page's stations only.
 */
export async function nearestStations(
  db: Sql | TransactionSql,
  near: Point,
  options: FinderOptions,
): Promise<Found[]> {
  const origin = db`ll_to_earth(${near.latitude}::float8, ${near.longitude}::float8)`;
  const chord = db`station_point(s.latitude, s.longitude) <-> ${origin}`;
  const roomFor =
    options.size || options.accessible
      ? db`and exists (
          select 1 from doors d
           where d.station_id = s.id and ${doorFree(db, options.asOf)}
             ${options.size ? db`and d.size in ${db(sizesFitting(options.size))}` : db``}
             ${options.accessible ? withinReach(db, 'd') : db``})`
      : db``;
  const filters = db`
    ${options.except ? db`and s.id <> ${options.except}` : db``}
    ${options.after ? db`and (${chord}, s.id) > (${options.after.chord}::float8, ${options.after.id}::uuid)` : db``}
    ${roomFor}`;
  const columns = db`s.id, s.code, s.name, s.address, s.latitude, s.longitude, s.opening_hours,
                     s.step_free, ${chord} as chord`;
  const sandbox = db`(select o.sandbox from organizations o where o.id = ${options.organizationId})`;
  // Two branches, each gated by whether the organization is a sandbox (a one-time filter):
  // a live one walks the stations' KNN index (live stations only, migration 016); a
  // sandbox sorts its own few. Either way a sandbox sees only its own, others only live.
  const rows = await db<Row[]>`
    with page as (
      (select ${columns} from stations s
        where s.latitude is not null and s.sandbox_organization_id is null
          and not ${sandbox} ${filters}
        order by ${chord}, s.id limit ${options.limit})
      union all
      (select ${columns} from stations s
        where s.latitude is not null and s.sandbox_organization_id = ${options.organizationId}
          and ${sandbox} ${filters}
        order by ${chord}, s.id limit ${options.limit}))
    select page.*,
           round(earth_distance(ll_to_earth(page.latitude, page.longitude), ${origin}))::int as distance_m,
           capacity.free, capacity.free_accessible
      from page
      cross join lateral (
        select ${counts(db, db``)} as free, ${counts(db, withinReach(db, 'd'))} as free_accessible
          from doors d where d.station_id = page.id and ${doorFree(db, options.asOf)}) capacity
     order by page.chord, page.id`;
  return rows.map((r) => ({
    id: r.id,
    code: r.code,
    name: r.name,
    address: r.address,
    latitude: r.latitude,
    longitude: r.longitude,
    opening_hours: r.opening_hours,
    step_free: r.step_free,
    distance_m: r.distance_m,
    free_doors: r.free,
    accessible_free_doors: r.free_accessible,
    chord: r.chord,
  }));
}

const DAY_MS = 86_400_000;
/** How far ahead the finder judges capacity. */
export const FINDER_MAX_DAYS_AHEAD = 30;

/** The moment a day's capacity is judged at: its start (UTC), or now for today. */
function dayStart(day: string | undefined, now: Date): { day: string; asOf: Date } {
  const today = now.toISOString().slice(0, 10);
  if (day === undefined) return { day: today, asOf: now };
  const start = new Date(`${day}T00:00:00.000Z`);
  const ahead = (start.getTime() - Date.parse(`${today}T00:00:00.000Z`)) / DAY_MS;
  if (Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== day) {
    throw invalid('day', 'invalid_format', 'must be a day, YYYY-MM-DD');
  }
  if (ahead < 0 || ahead > FINDER_MAX_DAYS_AHEAD) {
    throw invalid(
      'day',
      'invalid_value',
      `must be today or up to ${FINDER_MAX_DAYS_AHEAD} days ahead`,
    );
  }
  return { day, asOf: ahead === 0 ? now : start };
}

function invalid(field: string, code: string, message: string): ProblemError {
  return new ProblemError('validation_failed', `Invalid field(s): ${field}.`, [
    { field, code, message },
  ]);
}

/** The cursor: where the last page ended, bound to the `near` it was for. */
function encodeCursor(near: Point, last: Found): string {
  return Buffer.from(
    JSON.stringify({ n: [near.latitude, near.longitude], c: last.chord, i: last.id }),
  ).toString('base64url');
}

function decodeCursor(cursor: string, near: Point): { chord: number; id: string } {
  try {
    const { n, c, i } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      n: [number, number];
      c: number;
      i: string;
    };
    if (
      n[0] === near.latitude &&
      n[1] === near.longitude &&
      typeof c === 'number' &&
      Number.isFinite(c) &&
      /^[0-9a-f-]{36}$/.test(i)
    ) {
      return { chord: c, id: i };
    }
  } catch {
    // Not ours: answered below.
  }
  throw invalid('cursor', 'invalid_cursor', 'must be a next_cursor of this same near');
}

/** Drops the ordering key the cursor needs from a found station. */
export function present(found: Found): FoundStation {
  const { id, code, name, address, latitude, longitude, opening_hours, step_free } = found;
  const { distance_m, free_doors, accessible_free_doors } = found;
  return {
    id,
    code,
    name,
    address,
    latitude,
    longitude,
    opening_hours,
    step_free,
    distance_m,
    free_doors,
    accessible_free_doors,
  };
}

/**
 * GET /api/v1/stations?near=lat,lon[&day=][&size=][&accessible=true][&limit=][&cursor=]:
 * the organization's stations nearest first, with their free doors per size on `day`.
 */
export function findStations({ sql }: Services): Middleware {
  return async (ctx) => {
    const query = validate(StationFinderQuerySchema, { ...ctx.query }, 'validation_failed');
    const { day, asOf } = dayStart(query.day, new Date());
    const found = await nearestStations(sql, query.near, {
      organizationId: ctx.state.organization.id,
      asOf,
      size: query.size,
      accessible: query.accessible === 'true',
      limit: query.limit + 1,
      after: query.cursor === undefined ? undefined : decodeCursor(query.cursor, query.near),
    });
    const page = found.slice(0, query.limit);
    const last = page.at(-1);
    const body: StationFinderResult = {
      data: page.map(present),
      day,
      next_cursor: found.length > query.limit && last ? encodeCursor(query.near, last) : null,
    };
    ctx.body = body;
  };
}
