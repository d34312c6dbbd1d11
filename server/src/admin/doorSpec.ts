import { SizeSchema, type Size } from '@locker/shared';

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
    if (!Number.isInteger(n) || n < 1 || extra !== undefined) {
      throw new Error(`door "${item}" must be POSITION:SIZE[:CODE] with a positive whole position`);
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
