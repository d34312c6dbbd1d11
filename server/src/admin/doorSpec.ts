import { SizeSchema, type Size } from '@locker/shared';

/** The highest door position a kiosk's cabinet knows (lock-driver's cabinet file: 1 to 9999). */
export const MAX_DOOR_POSITION = 9999;

export interface DoorSpec {
  position: number;
  size: Size | null;
  code: string | null;
}

/**
 * Parses `POSITION:SIZE[:CODE]` items separated by commas, `-` for a door of unknown
 * size, e.g. `1:S:A1,2:M:A2,3:L,4:XL,5:-`.
 */
export function parseDoorSpec(spec: string): DoorSpec[] {
  const doors = spec.split(',').map((item) => {
    const [position, size, code, extra] = item.trim().split(':');
    const n = Number(position);
    if (!/^\d+$/.test(position ?? '') || n < 1 || n > MAX_DOOR_POSITION || extra !== undefined) {
      throw new Error(
        `door "${item}" must be POSITION:SIZE[:CODE] with a whole position from 1 to ${MAX_DOOR_POSITION}`,
      );
    }
    if (code !== undefined && !/^[\x21-\x7e]{0,16}$/.test(code)) {
      throw new Error(`door "${item}": its code must be at most 16 visible ASCII characters`);
    }
    if (size !== '-' && !SizeSchema.safeParse(size).success) {
      throw new Error(`door "${item}": size must be S, M, L, XL or -`);
    }
    return { position: n, size: size === '-' ? null : (size as Size), code: code || null };
  });
  const seen = new Set<number>();
  for (const door of doors) {
    if (seen.has(door.position)) throw new Error(`door position ${door.position} is given twice`);
    seen.add(door.position);
  }
  return doors;
}
