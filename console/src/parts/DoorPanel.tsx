import { DoorServiceAnswerSchema, ParcelSearchSchema } from '@locker/shared';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { ApiError, get, post, query } from '../api';
import { useConsole } from '../context';
import { useLoad } from '../load';
import { useDoorText } from './DoorGrid';
import { sensorOf, type Door } from './doorState';
import { useErrorText } from './ErrorNote';
import { RemoteOpen } from './RemoteOpen';
import { SidePanel } from './SidePanel';
import { statusText } from './statusText';
import { Time } from './Time';

/** One door: what it holds and since when, its sensor, its history, and the role's actions. */
export function DoorPanel({
  stationCode,
  stationName,
  door,
  live,
  onChanged,
  onClose,
}: {
  stationCode: string;
  stationName: string;
  door: Door;
  live: boolean;
  onChanged: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const c = useConsole();
  const text = useDoorText();
  const sensor = sensorOf(door);
  return (
    <SidePanel
      title={t('station.doorTitle', { door: door.position, station: stationCode })}
      onClose={onClose}
    >
      <dl className="facts">
        <div>
          <dt>{t('station.state')}</dt>
          <dd className="strong">{text(door)}</dd>
        </div>
        <div>
          <dt>{t('station.size')}</dt>
          <dd>{door.size ?? t('station.noSize')}</dd>
        </div>
        {door.holds && (
          <>
            <div>
              <dt>{t('station.parcel')}</dt>
              <dd>
                <Link href={`/parcels?q=${encodeURIComponent(door.holds.tracking_number)}`}>
                  {door.holds.tracking_number}
                </Link>
              </dd>
            </div>
            <div>
              <dt>{t('station.since')}</dt>
              <dd>
                <Time at={door.holds.since} exact />
              </dd>
            </div>
            {door.holds.overdue_since && (
              <div>
                <dt>{t('station.overdueSince')}</dt>
                <dd>
                  <Time at={door.holds.overdue_since} exact />
                </dd>
              </div>
            )}
            {door.holds.expires_at && (
              <div>
                <dt>{t('station.expires')}</dt>
                <dd>
                  <Time at={door.holds.expires_at} exact />
                </dd>
              </div>
            )}
          </>
        )}
        {door.out_of_service && (
          <div>
            <dt>{t('station.outOfService')}</dt>
            <dd>
              {t('station.outOfServiceWhy', {
                reason: door.out_of_service.reason,
                by: door.out_of_service.by,
              })}{' '}
              <Time at={door.out_of_service.since} />
            </dd>
          </div>
        )}
        <div>
          <dt>{t('station.sensor')}</dt>
          <dd>
            {sensor.state === null ? t('station.sensorNone') : t(`sensor.${sensor.state}`)}
            {sensor.state === 'open' && sensor.openSince && (
              <>
                {' '}
                {t('station.openSince')} <Time at={sensor.openSince} />
              </>
            )}
            {sensor.itemPresent !== null && (
              <> · {sensor.itemPresent ? t('station.itemInside') : t('station.empty')}</>
            )}
            {sensor.inSession && <> · {t('station.inSession')}</>}
            {sensor.seenAt && (
              <>
                {' · '}
                {t('station.seen')} <Time at={sensor.seenAt} />
              </>
            )}
            {!live && sensor.state !== null && (
              <span className="muted"> · {t('station.notLive')}</span>
            )}
          </dd>
        </div>
      </dl>
      {c.can('doors.open') && (
        <RemoteOpen
          stationCode={stationCode}
          stationName={stationName}
          door={door.position}
          onDone={onChanged}
        />
      )}
      {c.can('doors.service') && (
        <ServiceForm stationCode={stationCode} door={door} onChanged={onChanged} />
      )}
      {c.can('parcels.read') && <DoorHistory stationCode={stationCode} door={door.position} />}
      {c.can('audit.read') && (
        <Link
          href={`/audit?action=door&target=${encodeURIComponent(`${stationCode}/${door.position}`)}`}
        >
          {t('station.doorAudit')}
        </Link>
      )}
    </SidePanel>
  );
}

function ServiceForm({
  stationCode,
  door,
  onChanged,
}: {
  stationCode: string;
  door: Door;
  onChanged: () => void;
}) {
  const { t } = useTranslation();
  const c = useConsole();
  const errorText = useErrorText();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const inService = door.out_of_service === null && door.state !== 'out_of_service';
  useEffect(() => {
    setReason('');
    setError(undefined);
  }, [door.position]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await post(
        `/stations/${encodeURIComponent(stationCode)}/doors/${door.position}/service`,
        { in_service: !inService, reason: reason.trim() },
        DoorServiceAnswerSchema,
      );
      setReason('');
      c.announce(t(inService ? 'station.takenOut' : 'station.putBack', { door: door.position }));
      onChanged();
    } catch (failure) {
      setError(failure instanceof ApiError ? errorText(failure) : t('errors.unknown'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="service-form" onSubmit={(e) => void submit(e)}>
      <h3>
        {inService
          ? t('station.takeOutTitle', { door: door.position })
          : t('station.putBackTitle', { door: door.position })}
      </h3>
      <label>
        {t('station.reason')}
        <textarea
          required
          minLength={3}
          maxLength={500}
          rows={2}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      </label>
      <button type="submit" disabled={busy}>
        {inService ? t('station.takeOut') : t('station.putBackSubmit')}
      </button>
      {error && (
        <p className="note error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function DoorHistory({ stationCode, door }: { stationCode: string; door: number }) {
  const { t } = useTranslation();
  const history = useLoad(`${stationCode}:${door}`, (signal) =>
    get(`/parcels${query({ station: stationCode, door, limit: 10 })}`, ParcelSearchSchema, signal),
  );
  return (
    <section aria-labelledby="door-history">
      <h3 id="door-history">{t('station.history')}</h3>
      {history.data?.items.length === 0 && <p className="empty">{t('station.historyEmpty')}</p>}
      <ul className="plain">
        {history.data?.items.map((p) => (
          <li key={p.id}>
            <Link href={`/parcels?q=${encodeURIComponent(p.tracking_number)}`}>
              {p.tracking_number}
            </Link>{' '}
            · {statusText(t, p.status)} · <Time at={p.status_at} />
          </li>
        ))}
      </ul>
      {history.error && <p className="note error">{t('errors.unknown')}</p>}
    </section>
  );
}
