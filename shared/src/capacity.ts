import { z } from 'zod';
import { SIZES, text } from './common';
import { ProblemSchema } from './problem';

// Capacity on the merchant interface (issue 27): where stations are, which have room, a
// booking that holds a door, storage the recipient may extend. Extensions of part B; a
// booking that asks for none of it behaves exactly as the spec says.

/** The reach range of EN 301 549 (and EN 81-70): a handle a seated person can use. */
export const ACCESSIBLE_HANDLE_MM = { min: 380, max: 1220 } as const;

export const WEEKDAYS = ['mo', 'tu', 'we', 'th', 'fr', 'sa', 'su'] as const;
export const WeekdaySchema = z.enum(WEEKDAYS);
export type Weekday = z.infer<typeof WeekdaySchema>;

const CLOCK = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;

/** One span of opening, in the station's local time; `closes` 24:00 is midnight. */
export const OpeningSpanSchema = z
  .object({
    days: z.array(WeekdaySchema).min(1).max(7),
    opens: text().regex(CLOCK, 'must be HH:MM'),
    closes: text().regex(CLOCK, 'must be HH:MM, 24:00 for midnight'),
  })
  .refine((span) => span.opens < span.closes, {
    message: 'must close after it opens',
    path: ['closes'],
  });
export type OpeningSpan = z.infer<typeof OpeningSpanSchema>;

/** When the lockers can be reached; null when the operator has not said. */
export const OpeningHoursSchema = z.array(OpeningSpanSchema).max(21).nullable();
export type OpeningHours = z.infer<typeof OpeningHoursSchema>;

/** Free doors per door size (a parcel fits a door of its size or larger). */
export const FreeDoorsSchema = z.object({
  S: z.number().int(),
  M: z.number().int(),
  L: z.number().int(),
  XL: z.number().int(),
});
export type FreeDoors = z.infer<typeof FreeDoorsSchema>;

const LATITUDE = z.number().min(-90).max(90);
const LONGITUDE = z.number().min(-180).max(180);

/** `lat,lon` in decimal degrees, e.g. `42.6629,21.1655`. */
export const NearSchema = text()
  .max(64)
  .transform((value, ctx) => {
    const match = /^\s*(-?\d{1,2}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)\s*$/.exec(value);
    const latitude = Number(match?.[1]);
    const longitude = Number(match?.[2]);
    if (
      !match ||
      !LATITUDE.safeParse(latitude).success ||
      !LONGITUDE.safeParse(longitude).success
    ) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be latitude,longitude in decimal degrees, e.g. 42.6629,21.1655',
        params: { code: 'invalid_format' },
      });
      return z.NEVER;
    }
    return { latitude, longitude };
  });

/** A calendar day, YYYY-MM-DD. */
export const DaySchema = text().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day, YYYY-MM-DD');

/** GET /api/v1/stations: the nearest stations first. */
export const StationFinderQuerySchema = z.strictObject({
  near: NearSchema,
  /** The day capacity is judged for (UTC); today when omitted, at most 30 days ahead. */
  day: DaySchema.optional(),
  /** Only stations with a free door this size fits. */
  size: z.enum(SIZES, { error: `must be one of ${SIZES.join(', ')}` }).optional(),
  /** `true`: only stations with such a door free within reach (380-1,220 mm). */
  accessible: z.enum(['true', 'false']).optional(),
  limit: z.coerce.number().int().min(1).max(50).default(10),
  /** `next_cursor` of the previous page (with the same `near`). */
  cursor: text().min(1).max(300).optional(),
});
export type StationFinderQuery = z.infer<typeof StationFinderQuerySchema>;

export const StationPlaceSchema = z.object({
  address: text().nullable(),
  latitude: z.number(),
  longitude: z.number(),
  opening_hours: OpeningHoursSchema,
  /** Reachable without a step; null: not known. */
  step_free: z.boolean().nullable(),
});

export const FoundStationSchema = StationPlaceSchema.extend({
  id: z.guid(),
  code: text(),
  name: text(),
  /** Great-circle distance from `near`, metres. */
  distance_m: z.number().int(),
  /** Doors free on `day`, per size: not holding a parcel, in service, not reserved. */
  free_doors: FreeDoorsSchema,
  /** Of those, doors whose handle lies within 380-1,220 mm. */
  accessible_free_doors: FreeDoorsSchema,
}).meta({
  id: 'FoundStation',
  example: {
    id: '5b0e4a7e-2f1c-4d7e-9a51-0c3f6b8d2e41',
    code: 'PR01',
    name: 'Prishtina Center',
    address: 'Rruga Agim Ramadani 15, 10000 Prishtinë',
    latitude: 42.6629,
    longitude: 21.1655,
    opening_hours: [
      { days: ['mo', 'tu', 'we', 'th', 'fr', 'sa', 'su'], opens: '00:00', closes: '24:00' },
    ],
    step_free: true,
    distance_m: 420,
    free_doors: { S: 3, M: 1, L: 0, XL: 1 },
    accessible_free_doors: { S: 1, M: 1, L: 0, XL: 0 },
  },
});
export type FoundStation = z.infer<typeof FoundStationSchema>;

export const StationFinderResultSchema = z
  .object({
    /** Nearest first. */
    data: z.array(FoundStationSchema),
    /** The day capacity was judged for. */
    day: text(),
    next_cursor: text().nullable(),
  })
  .meta({ id: 'StationFinderResult' });
export type StationFinderResult = z.infer<typeof StationFinderResultSchema>;

/** A station that has room, as a 409 `station_full` lists it. */
export const StationWithRoomSchema = FoundStationSchema.pick({
  id: true,
  code: true,
  name: true,
  address: true,
  distance_m: true,
  free_doors: true,
  accessible_free_doors: true,
});
export type StationWithRoom = z.infer<typeof StationWithRoomSchema>;

/** The door a booking holds, on the shipment (present only when the booking reserved). */
export const ReservationSchema = z.object({
  /**
   * `held` until deposit; `used` once deposited; `lapsed` past `held_until` undeposited
   * (the parcel still goes in if a door is free); `released` by a cancel.
   */
  status: z.enum(['held', 'used', 'lapsed', 'released']),
  held_until: z.iso.datetime({ offset: true }),
});
export type Reservation = z.infer<typeof ReservationSchema>;

/** POST /api/v1/shipments/{id}/extend: no body, or an empty object. */
export const ExtendStorageRequestSchema = z.strictObject({}).meta({ id: 'ExtendStorageRequest' });

export const StorageSchema = z
  .object({
    /** Free storage ends (late collection after). */
    free_until: z.iso.datetime({ offset: true }),
    /** The parcel expires and goes back. */
    expires_at: z.iso.datetime({ offset: true }),
    /** Hours the one extension added (0: not taken). */
    extended_hours: z.number().int(),
    /** Whether the station grants an extension this parcel has not taken yet. */
    extension_available: z.boolean(),
  })
  .meta({ id: 'Storage' });
export type Storage = z.infer<typeof StorageSchema>;

/**
 * 409 `station_full` (POST /api/v1/shipments with `reserve_door`): the problem's members
 * and three of its own. Branch on `code`.
 */
export const StationFullProblemSchema = ProblemSchema.extend({
  code: z.literal('station_full'),
  parcel_size: z.enum(SIZES),
  accessible_door: z.boolean(),
  /** Nearest first, at most 3; empty when the station has no coordinates or none has room. */
  nearest_stations_with_room: z.array(StationWithRoomSchema),
}).meta({ id: 'StationFullProblem' });
export type StationFullProblemBody = z.infer<typeof StationFullProblemSchema>;
