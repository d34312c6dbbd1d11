import type { StationDetailSchema } from '@locker/shared';
import type { z } from 'zod';

export type StationDetail = z.infer<typeof StationDetailSchema>;
export type Door = StationDetail['doors'][number];

/** What a door is, as the station page says it (in words and colour, never colour alone). */
export type DoorLook =
  | 'open_now'
  | 'fault'
  | 'out_of_service'
  | 'expired'
  | 'overdue'
  | 'holds'
  | 'return_hold'
  | 'free';

/**
 * The door's live reading over the link (issue 23's link side): the state, whether an item
 * is inside, whether a door session (a person at the screen, a remote open) uses it, and
 * since when it stands open. Read loosely: a service without the link sends nulls.
 */
export interface Sensor {
  state: 'open' | 'closed' | 'unknown' | null;
  itemPresent: boolean | null;
  inSession: boolean | null;
  openSince: string | null;
  seenAt: string | null;
}

export function sensorOf(door: Door): Sensor {
  const raw = door.sensor as {
    state: string | null;
    item_present?: boolean | null;
    in_session?: boolean | null;
    open_since?: string | null;
    seen_at: string | null;
  };
  const state =
    raw.state === 'open' || raw.state === 'closed' || raw.state === 'unknown' ? raw.state : null;
  return {
    state,
    itemPresent: raw.item_present ?? null,
    inSession: raw.in_session ?? null,
    openSince: raw.open_since ?? null,
    seenAt: raw.seen_at,
  };
}

export function lookOf(door: Door, now = Date.now()): DoorLook {
  if (sensorOf(door).state === 'open') return 'open_now';
  if (
    door.state === 'out_of_service' &&
    door.out_of_service &&
    /fault|did not open|will not close|jam/i.test(door.out_of_service.reason)
  )
    return 'fault';
  if (door.state === 'out_of_service') return 'out_of_service';
  if (door.holds?.kind === 'return_hold') return 'return_hold';
  if (door.holds?.expires_at && new Date(door.holds.expires_at).getTime() <= now) return 'expired';
  if (door.holds?.overdue_since) return 'overdue';
  if (door.holds) return 'holds';
  return 'free';
}

/**
 * A door whose sensor disagrees with what the service believes, while nobody uses it: an
 * item seen in a door the service thinks empty, or none in one it thinks holds a parcel.
 */
export function disagrees(door: Door): boolean {
  const sensor = sensorOf(door);
  if (sensor.state !== 'closed' || sensor.inSession || sensor.itemPresent === null) return false;
  const believed = door.holds !== null && door.holds.kind !== 'return_hold';
  return sensor.itemPresent !== believed;
}

/** A live report of some doors' sensors (the stream's `door` event). */
export interface DoorStatesEvent {
  station_code: string;
  at: string;
  doors: {
    position: number;
    state: 'open' | 'closed' | 'unknown';
    item_present: boolean | null;
    in_session: boolean | null;
    open_since: string | null;
  }[];
}

/** The station with a live report folded into its doors' sensors. */
export function withDoorStates(station: StationDetail, event: DoorStatesEvent): StationDetail {
  const changed = new Map(event.doors.map((d) => [d.position, d]));
  return {
    ...station,
    doors: station.doors.map((door) => {
      const reading = changed.get(door.position);
      const read = door.sensor.seen_at ? new Date(door.sensor.seen_at).getTime() : 0;
      if (!reading || read > new Date(event.at).getTime()) return door;
      return {
        ...door,
        sensor: {
          ...door.sensor,
          state: reading.state,
          item_present: reading.item_present,
          in_session: reading.in_session,
          open_since: reading.open_since,
          seen_at: event.at,
        },
      };
    }),
  };
}

/**
 * The cabinet's columns, top to bottom, left to right: the layout its kiosk sent when the
 * service has it, else columns of 8 in position order (the kiosk's own default).
 */
export function columnsOf(
  station: StationDetail & { layout?: { columns?: number[][] } | null },
): Door[][] {
  const byPosition = new Map(station.doors.map((d) => [d.position, d]));
  const given = station.layout?.columns;
  if (given && given.length > 0) {
    const placed = new Set(given.flat());
    const columns = given.map((column) =>
      column.map((p) => byPosition.get(p)).filter((d): d is Door => !!d),
    );
    const rest = station.doors.filter((d) => !placed.has(d.position));
    return rest.length ? [...columns, rest] : columns;
  }
  const columns: Door[][] = [];
  station.doors.forEach((door, i) => {
    if (i % 8 === 0) columns.push([]);
    columns[columns.length - 1]!.push(door);
  });
  return columns;
}
