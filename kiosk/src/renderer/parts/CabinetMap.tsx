import type { CabinetResponse, Door } from '@locker/shared';
import { useTranslation } from 'react-i18next';

/** Columns of 8, left to right, when the cabinet file gives no layout. */
export function defaultColumns(positions: number[]): number[][] {
  const sorted = [...positions].sort((a, b) => a - b);
  const columns: number[][] = [];
  for (let i = 0; i < sorted.length; i += 8) columns.push(sorted.slice(i, i + 8));
  return columns;
}

/** How tall a door is drawn: a large door takes the room of two or three small ones. */
const HEIGHT: Record<string, number> = { S: 1, M: 1.5, L: 2, XL: 3 };

/**
 * The cabinet as it stands: its columns of doors, left to right, top to bottom, as the
 * cabinet file lays them out. The door in use is drawn large and dark and is never called
 * free; the others only give it a place.
 */
export function CabinetMap({
  cabinet,
  columns,
  highlight,
  label,
}: {
  cabinet: CabinetResponse | null;
  columns: number[][] | null;
  highlight?: number;
  label: string;
}) {
  const { t } = useTranslation();
  if (!cabinet) return null;
  const doors = new Map(cabinet.doors.map((door) => [door.position, door]));
  const layout = columns ?? defaultColumns(cabinet.doors.map((d) => d.position));
  // Only the technician's map tells statuses; a customer's shows where the door is.
  const status = (door: Door | undefined) => (door ? t(`grid.${door.status}`) : '');
  return (
    <div className="cabinet-map" role="img" aria-label={label}>
      {layout.map((column, c) => (
        <div key={c} className="cabinet-column">
          {column.map((position) => {
            const door = doors.get(position);
            const current = position === highlight;
            return (
              <div
                key={position}
                className={`cabinet-door cabinet-${door?.status ?? 'unknown'}${current ? ' cabinet-current' : ''}`}
                style={{ flexGrow: HEIGHT[door?.size ?? 'S'] ?? 1 }}
                data-position={position}
              >
                <span className="cabinet-number">{position}</span>
                {highlight === undefined && <span className="cabinet-status">{status(door)}</span>}
              </div>
            );
          })}
        </div>
      ))}
    </div>
  );
}
