/**
 * Operator commands of issue 27: where a station is and when it opens, how long its
 * reservations and storage extensions last, and how high its door handles are. The
 * operations API (stations' CRUD) may grow the same fields; these write the same columns.
 */
import { ACCESSIBLE_HANDLE_MM, NearSchema, type OpeningSpan } from '@locker/shared';
import { readFileSync } from 'node:fs';
import type { Sql } from '../db/connect';
import { parseOpeningHours } from '../domain/openingHours';
import { extendStorageNow } from '../capacity/extend';
import { AdminError } from './commands';
import type { CommandSpec, Options } from './registry';

export interface StationPlace {
  address?: string | undefined;
  /** `lat,lon`, decimal degrees. */
  coordinates?: string | undefined;
  /** As `parseOpeningHours` reads it; `unknown` clears it. */
  hours?: string | undefined;
  stepFree?: 'yes' | 'no' | 'unknown' | undefined;
}

function coordinates(given: string): { latitude: number; longitude: number } {
  const parsed = NearSchema.safeParse(given);
  if (!parsed.success) {
    throw new AdminError(
      `--coordinates must be latitude,longitude in decimal degrees, e.g. 42.6629,21.1655, not "${given}"`,
    );
  }
  return parsed.data;
}

function openingHours(given: string): OpeningSpan[] | null {
  if (given.trim().toLowerCase() === 'unknown') return null;
  try {
    return parseOpeningHours(given);
  } catch (error) {
    throw new AdminError(`--hours: ${(error as Error).message}`);
  }
}

/** Sets what is given of a station's place; what is not given stays as it was. */
export async function setStationPlace(sql: Sql, code: string, place: StationPlace) {
  const point = place.coordinates === undefined ? undefined : coordinates(place.coordinates);
  const hours = place.hours === undefined ? undefined : openingHours(place.hours);
  if (place.address !== undefined && place.address.length > 300)
    throw new AdminError('--address must be at most 300 characters');
  const changes: Record<string, unknown> = {
    ...(place.address === undefined ? {} : { address: place.address.trim() || null }),
    ...(point ? { latitude: point.latitude, longitude: point.longitude } : {}),
    ...(hours === undefined ? {} : { opening_hours: hours === null ? null : sql.json(hours) }),
    ...(place.stepFree === undefined
      ? {}
      : { step_free: place.stepFree === 'unknown' ? null : place.stepFree === 'yes' }),
  };
  if (Object.keys(changes).length === 0)
    throw new AdminError('give at least one of --address, --coordinates, --hours, --step-free');
  const [row] = await sql<
    {
      code: string;
      address: string | null;
      latitude: number | null;
      longitude: number | null;
      opening_hours: OpeningSpan[] | null;
      step_free: boolean | null;
    }[]
  >`
    update stations set ${sql(changes)} where code = ${code}
    returning code, address, latitude, longitude, opening_hours, step_free`;
  if (!row) throw new AdminError(`station ${code} not found`);
  return {
    code: row.code,
    address: row.address,
    latitude: row.latitude,
    longitude: row.longitude,
    openingHours: row.opening_hours,
    stepFree: row.step_free,
  };
}

/** How long a reservation holds its door, and the one storage extension (`none`: none). */
export async function setStationBooking(
  sql: Sql,
  code: string,
  settings: { reservationHours?: number | undefined; extensionHours?: number | null | undefined },
) {
  const changes: Record<string, unknown> = {
    ...(settings.reservationHours === undefined
      ? {}
      : { reservation_hours: settings.reservationHours }),
    ...(settings.extensionHours === undefined
      ? {}
      : { storage_extension_hours: settings.extensionHours }),
  };
  if (Object.keys(changes).length === 0)
    throw new AdminError('give --reservation-hours, --extension-hours, or both');
  const [row] = await sql<
    { code: string; reservation_hours: number; storage_extension_hours: number | null }[]
  >`
    update stations set ${sql(changes)} where code = ${code}
    returning code, reservation_hours, storage_extension_hours`;
  if (!row) throw new AdminError(`station ${code} not found`);
  return {
    code: row.code,
    reservationHours: row.reservation_hours,
    storageExtensionHours: row.storage_extension_hours,
  };
}

/** `POSITION:MM,…` → the handle heights, checked. */
function heights(spec: string): { position: number; mm: number }[] {
  return spec.split(',').map((item) => {
    const match = /^\s*(\d+):(\d+)\s*$/.exec(item);
    const position = Number(match?.[1]);
    const mm = Number(match?.[2]);
    if (!match || position < 1 || mm > 3000) {
      throw new AdminError(
        `--heights must be POSITION:MILLIMETRES,… (0-3000 mm), e.g. 1:1650,2:1100, not "${item}"`,
      );
    }
    return { position, mm };
  });
}

/** Sets the handle height of the given doors; answers each with whether it is within reach. */
export async function setDoorHeights(sql: Sql, code: string, spec: string) {
  const wanted = heights(spec);
  return sql.begin(async (tx) => {
    const doors: { position: number; handleHeightMm: number; withinReach: boolean }[] = [];
    for (const { position, mm } of wanted) {
      const [door] = await tx<{ position: number }[]>`
        update doors d set handle_height_mm = ${mm}
          from stations s
         where s.id = d.station_id and s.code = ${code} and d.position = ${position}
        returning d.position`;
      if (!door) throw new AdminError(`door ${position} of station ${code} not found`);
      doors.push({
        position,
        handleHeightMm: mm,
        withinReach: mm >= ACCESSIBLE_HANDLE_MM.min && mm <= ACCESSIBLE_HANDLE_MM.max,
      });
    }
    return { station: code, doors };
  });
}

/**
 * The heights a cabinet file records (`handleHeightsMm`, lock-driver's cabinet schema,
 * which `lockctl` and the kiosk check on load), as a `--heights` spec.
 */
function heightsFromCabinetFile(file: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new AdminError(`--cabinet ${file} cannot be read as JSON: ${(error as Error).message}`);
  }
  const heights = (parsed as { handleHeightsMm?: unknown } | null)?.handleHeightsMm;
  if (!heights || typeof heights !== 'object' || Object.keys(heights).length === 0)
    throw new AdminError(`--cabinet ${file} has no "handleHeightsMm" (position: millimetres)`);
  return Object.entries(heights)
    .map(([position, mm]) => `${position}:${String(mm)}`)
    .join(',');
}

function hoursOption(o: Options, name: string, allowNone: boolean): number | null | undefined {
  const value = o[name];
  if (value === undefined) return undefined;
  if (allowNone && value === 'none') return null;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 720)
    throw new AdminError(
      `--${name} must be a whole number of hours from 1 to 720${allowNone ? ', or none' : ''}, not "${value}"`,
    );
  return Number(value);
}

const STATION = {
  name: 'station',
  value: 'CODE',
  help: 'station code, e.g. PR01, as pnpm admin station list prints it',
  required: true,
};

/** An operator grants a parcel's one storage extension (e.g. the recipient called support). */
export async function extendShipmentStorage(sql: Sql, trackingNumber: string) {
  const outcome = await extendStorageNow(sql, { trackingNumber });
  if (outcome.kind === 'not_found') throw new AdminError(`shipment ${trackingNumber} not found`);
  if (outcome.kind === 'not_extendable') throw new AdminError(`not extended: ${outcome.why}`);
  return {
    trackingNumber,
    freeUntil: outcome.storage.free_until,
    expiresAt: outcome.storage.expires_at,
    extendedHours: outcome.storage.extended_hours,
  };
}

/** A command of this file, with what the audit log records of it (registry.ts wraps it). */
export type PlaceCommand = CommandSpec & { action: string; target: string };

export const PLACE_COMMANDS: PlaceCommand[] = [
  {
    name: 'station set-place',
    action: 'station.set_place',
    target: 'station',
    summary: 'where a station is and when it opens: the merchant finder shows it',
    prints: '{"code","address","latitude","longitude","openingHours","stepFree"}',
    options: [
      STATION,
      {
        name: 'address',
        value: 'TEXT',
        help: 'one line, e.g. "Rruga Agim Ramadani 15, Prishtinë"',
      },
      { name: 'coordinates', value: 'LAT,LON', help: 'decimal degrees, e.g. 42.6629,21.1655' },
      {
        name: 'hours',
        value: 'SPEC',
        help: '24/7, or e.g. "mo-fr 08:00-20:00; sa 09:00-14:00" (local time); unknown clears',
      },
      { name: 'step-free', value: 'yes|no|unknown', help: 'reachable without a step' },
    ],
    run: (sql, o) => {
      const stepFree = o['step-free'];
      if (stepFree !== undefined && !['yes', 'no', 'unknown'].includes(stepFree))
        throw new AdminError(`--step-free must be one of yes, no, unknown, not "${stepFree}"`);
      return setStationPlace(sql, o.station as string, {
        address: o.address,
        coordinates: o.coordinates,
        hours: o.hours,
        stepFree: stepFree as StationPlace['stepFree'],
      });
    },
  },
  {
    name: 'station set-booking',
    action: 'station.set_booking',
    target: 'station',
    summary: 'how long a booking holds its reserved door, and the storage extension granted',
    prints: '{"code","reservationHours","storageExtensionHours"}',
    options: [
      STATION,
      {
        name: 'reservation-hours',
        value: 'HOURS',
        help: 'a reservation lapses this long after booking if not deposited (72)',
      },
      {
        name: 'extension-hours',
        value: 'HOURS|none',
        help: 'the one extension of free and maximum storage a recipient may take (48)',
      },
    ],
    run: (sql, o) =>
      setStationBooking(sql, o.station as string, {
        reservationHours: hoursOption(o, 'reservation-hours', false) ?? undefined,
        extensionHours: hoursOption(o, 'extension-hours', true),
      }),
  },
  {
    name: 'shipment extend',
    action: 'shipment.extend_storage',
    target: 'tracking',
    summary: "grants a parcel's one storage extension (the station's extension hours)",
    prints: '{"trackingNumber","freeUntil","expiresAt","extendedHours"}',
    options: [{ name: 'tracking', value: 'NUMBER', help: 'its tracking number', required: true }],
    run: (sql, o) => extendShipmentStorage(sql, o.tracking as string),
  },
  {
    name: 'door set-height',
    action: 'door.set_height',
    target: 'station',
    summary: `door handles' height above the floor: ${ACCESSIBLE_HANDLE_MM.min}-${ACCESSIBLE_HANDLE_MM.max} mm is within reach`,
    prints: '{"station","doors":[{"position","handleHeightMm","withinReach"}]}',
    options: [
      STATION,
      {
        name: 'heights',
        value: 'POS:MM,…',
        help: 'position and handle height in millimetres, e.g. 1:1650,2:1100,3:450',
      },
      {
        name: 'cabinet',
        value: 'FILE',
        help: 'or the heights the kiosk\'s cabinet file records ("handleHeightsMm")',
      },
    ],
    run: (sql, o) => {
      if ((o.heights === undefined) === (o.cabinet === undefined))
        throw new AdminError('give --heights or --cabinet, one of them');
      const spec = o.heights ?? heightsFromCabinetFile(o.cabinet as string);
      return setDoorHeights(sql, o.station as string, spec);
    },
  },
];
