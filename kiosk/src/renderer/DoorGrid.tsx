import type { CabinetResponse } from '@locker/shared';
import { useTranslation } from 'react-i18next';

/** The cabinet's doors by position; the door in use is highlighted. */
export function DoorGrid({
  cabinet,
  highlight,
}: {
  cabinet: CabinetResponse | null;
  highlight?: number;
}) {
  const { t } = useTranslation();
  if (!cabinet) return null;
  return (
    <ul className="door-grid" aria-label={t('grid.title')}>
      {cabinet.doors.map((door) => (
        <li
          key={door.position}
          className={`door door-${door.status}${door.position === highlight ? ' door-highlight' : ''}`}
          aria-current={door.position === highlight ? 'true' : undefined}
        >
          <span className="door-number">{door.position}</span>
          <span className="door-status">{t(`grid.${door.status}`)}</span>
        </li>
      ))}
    </ul>
  );
}
