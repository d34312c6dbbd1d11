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

/** The door's live sensor reading: open, shut, or not known. */
export function sensorOf(door: Door): 'open' | 'closed' | 'unknown' | null {
  const state = door.sensor.state?.toLowerCase();
  if (!state) return null;
  if (state.includes('open')) return 'open';
  if (state.includes('closed') || state.includes('shut')) return 'closed';
  return 'unknown';
}

export function lookOf(door: Door, now = Date.now()): DoorLook {
  if (sensorOf(door) === 'open') return 'open_now';
  if (
    door.state === 'out_of_service' &&
    door.out_of_service &&
    /fault|did not open|jam/i.test(door.out_of_service.reason)
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
 * A door whose sensor disagrees with what the service believes: open while nobody should
 * be at it is shown as "open now"; here, a reading of an item in a door the service
 * thinks empty, or none in one it thinks full.
 */
export function disagrees(door: Door): boolean {
  const state = door.sensor.state?.toLowerCase() ?? '';
  if (state.includes('item') && !state.includes('no item') && !state.includes('empty'))
    return door.holds === null;
  if (state.includes('empty') || state.includes('no item')) return door.holds !== null;
  return false;
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
