import { useTranslation } from 'react-i18next';
import { useNow } from '../context';
import { daysSince } from '../format';
import { columnsOf, disagrees, lookOf, sensorOf, type Door, type StationDetail } from './doorState';

const MARK: Record<ReturnType<typeof lookOf>, string> = {
  open_now: '◫',
  fault: '✕',
  expired: '‼',
  out_of_service: '⊘',
  overdue: '!',
  holds: '■',
  return_hold: '↺',
  free: '□',
};

/**
 * The doors as the cabinet stands: its columns left to right, each top to bottom. Each
 * door says its state in words (and a mark) besides its colour; a press selects it for
 * the side panel (no action is ever on the grid itself).
 */
export function DoorGrid({
  station,
  selected,
  live,
  onSelect,
}: {
  station: StationDetail;
  selected: number | undefined;
  live: boolean;
  onSelect: (position: number) => void;
}) {
  const { t } = useTranslation();
  const columns = columnsOf(station);
  return (
    <div
      className={`door-grid-wrap ${live ? '' : 'dimmed'}`}
      role="group"
      aria-label={t('station.grid')}
      tabIndex={0}
    >
      <div className="door-grid">
        {columns.map((column, i) => (
          <ul key={i} className="door-column" aria-label={t('station.column', { n: i + 1 })}>
            {column.map((door) => (
              <li key={door.position}>
                <DoorCell door={door} selected={door.position === selected} onSelect={onSelect} />
              </li>
            ))}
          </ul>
        ))}
      </div>
    </div>
  );
}

export function useDoorText() {
  const { t } = useTranslation();
  const now = useNow();
  return (door: Door): string => {
    const look = lookOf(door);
    switch (look) {
      case 'open_now':
        return sensorOf(door).inSession ? t('doorLook.open_in_use') : t('doorLook.open_now');
      case 'fault':
        return t('doorLook.fault');
      case 'out_of_service':
        return t('doorLook.out_of_service');
      case 'expired':
        return t('doorLook.expired');
      case 'overdue':
        return t('doorLook.overdue', { count: daysSince(door.holds!.overdue_since!, now) });
      case 'holds':
        return door.holds?.kind === 'return' ? t('doorLook.return') : t('doorLook.holds');
      case 'return_hold':
        return t('doorLook.return_hold');
      case 'free':
        return t('doorLook.free');
    }
  };
}

function DoorCell({
  door,
  selected,
  onSelect,
}: {
  door: Door;
  selected: boolean;
  onSelect: (position: number) => void;
}) {
  const { t } = useTranslation();
  const text = useDoorText();
  const look = lookOf(door);
  const sensor = sensorOf(door);
  const odd = disagrees(door);
  return (
    <button
      type="button"
      className={`door look-${look} size-${door.size ?? 'none'} ${selected ? 'selected' : ''} ${odd ? 'odd' : ''}`}
      aria-pressed={selected}
      onClick={() => onSelect(door.position)}
    >
      <span className="door-number">{door.position}</span>
      <span className="door-size">{door.size ?? '—'}</span>
      <span className="door-state">
        <span aria-hidden="true">{MARK[look]} </span>
        {text(door)}
      </span>
      {odd && <span className="door-odd">{t('station.disagrees')}</span>}
      {sensor.state === 'unknown' && <span className="door-odd">{t('station.sensorUnknown')}</span>}
    </button>
  );
}
