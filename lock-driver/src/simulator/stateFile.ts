import { readFileSync, renameSync, writeFileSync } from 'node:fs';

export interface SimDoor {
  closed: boolean;
  itemPresent: boolean;
}

/** Doors by position, as the simulator's state file keeps them. */
type SavedDoors = Record<string, SimDoor>;

/** The saved doors, or undefined when there is no file yet (a fresh cabinet). */
export function loadDoorState(file: string): SavedDoors | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const raw = JSON.parse(text) as { doors?: SavedDoors };
  if (typeof raw !== 'object' || raw === null || typeof raw.doors !== 'object')
    throw new Error(`${file} is not a simulator state file (no "doors")`);
  return raw.doors;
}

/** Written whole and renamed into place: a crash never leaves half a file. */
export function saveDoorState(file: string, boards: SimDoor[][]): void {
  const doors: SavedDoors = {};
  boards.forEach((locks, b) =>
    locks.forEach((l, i) => {
      doors[b * locks.length + i + 1] = { closed: l.closed, itemPresent: l.itemPresent };
    }),
  );
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify({ doors }, null, 1));
  renameSync(temporary, file);
}
