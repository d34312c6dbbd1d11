import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { KioskState, SensorMismatch, SensorReading } from '../../bridge/api';
import { kiosk } from '../bridge';

const SENSOR_POLL_MS = 2000;

/** The board's reading, refreshed while the maintenance view is shown. */
function useSensorReading(): SensorReading | null {
  const [reading, setReading] = useState<SensorReading | null>(null);
  useEffect(() => {
    let shown = true;
    const read = () =>
      void kiosk
        .readSensors()
        .catch((): SensorReading => ({ kind: 'board_unreachable' }))
        .then((next) => shown && setReading(next));
    read();
    const timer = setInterval(read, SENSOR_POLL_MS);
    return () => {
      shown = false;
      clearInterval(timer);
    };
  }, []);
  return reading;
}

/** What the screen says for each disagreement the core found. */
const MISMATCH_TEXT = {
  item_in_free_door: 'maintenance.mismatchItem',
  empty_where_parcel_expected: 'maintenance.mismatchEmpty',
} as const satisfies Record<SensorMismatch, string>;

/**
 * For technicians, behind the PIN: the service's view of every door beside what the
 * sensors read, and the offline queue. It opens nothing: doors are opened with `lockctl`.
 */
export function MaintenanceView({ state }: { state: KioskState }) {
  const { t } = useTranslation();
  const reading = useSensorReading();
  const sensed =
    reading?.kind === 'sensors' ? new Map(reading.doors.map((d) => [d.position, d])) : null;
  return (
    <div className="maintenance">
      <ul className="maintenance-status">
        <li>{t('maintenance.station', { code: state.config?.station_code ?? '—' })}</li>
        <li>
          {t(
            state.condition === 'service_unreachable'
              ? 'maintenance.offline'
              : 'maintenance.online',
          )}
        </li>
        <li>{t('maintenance.queue', { count: state.pendingReports })}</li>
        <li>{t('maintenance.stuck', { count: state.stuckReports })}</li>
      </ul>
      {reading?.kind === 'board_unreachable' && (
        <p className="message message-error" role="alert">
          {t('maintenance.unreachable')}
        </p>
      )}
      {sensed && state.cabinet && (
        <table className="sensors">
          <caption>{t('maintenance.sensors')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('maintenance.door')}</th>
              <th scope="col">{t('maintenance.service')}</th>
              <th scope="col">{t('maintenance.lock')}</th>
              <th scope="col">{t('maintenance.content')}</th>
              <th scope="col">{t('maintenance.check')}</th>
            </tr>
          </thead>
          <tbody>
            {state.cabinet.doors.map((door) => {
              const sensors = sensed.get(door.position);
              const warning = sensors?.known ? sensors.mismatch : null;
              return (
                <tr key={door.position} className={warning ? 'sensor-mismatch' : undefined}>
                  <th scope="row">{door.position}</th>
                  <td>{t(`grid.${door.status}`)}</td>
                  <td>
                    {sensors?.known
                      ? t(sensors.closed ? 'maintenance.closed' : 'maintenance.open')
                      : '—'}
                  </td>
                  <td>
                    {sensors?.known
                      ? t(sensors.itemPresent ? 'maintenance.item' : 'maintenance.empty')
                      : '—'}
                  </td>
                  <td>{warning ? t(MISMATCH_TEXT[warning]) : ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
