import { doorMap, type Cabinet, type LockAddress } from './cabinet/schema';
import { LockDriverError } from './errors';

/** Door positions (the vendor slot numbers) to board and lock, as the cabinet file says. */
export class PositionMap {
  private readonly doors: Map<number, LockAddress>;
  private readonly byLock = new Map<string, number>();

  constructor(cabinet: Pick<Cabinet, 'boards' | 'positionOverrides'>) {
    this.doors = doorMap(cabinet.boards, cabinet.positionOverrides);
    for (const [position, a] of this.doors) this.byLock.set(`${a.board}/${a.lock}`, position);
  }

  /** Every position of the cabinet, ascending. */
  get positions(): number[] {
    return [...this.doors.keys()];
  }

  toAddress(position: number): LockAddress {
    const address = Number.isInteger(position) ? this.doors.get(position) : undefined;
    if (!address)
      throw new LockDriverError(
        'INVALID_ARGUMENT',
        `door ${position} is not in this cabinet (doors ${describeRange(this.positions)})`,
      );
    return address;
  }

  /** The door a lock drives; undefined for a lock with no door. */
  toPosition(address: LockAddress): number | undefined {
    return this.byLock.get(`${address.board}/${address.lock}`);
  }
}

/** "1-48" or "1-12, 17-32": positions as a technician reads them. */
export function describeRange(positions: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < positions.length;) {
    let j = i;
    while (j + 1 < positions.length && positions[j + 1] === positions[j]! + 1) j++;
    parts.push(i === j ? `${positions[i]}` : `${positions[i]}-${positions[j]}`);
    i = j + 1;
  }
  return parts.join(', ') || 'none';
}
