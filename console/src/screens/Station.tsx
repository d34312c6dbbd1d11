import { StationDetailSchema, type TerminalView } from '@locker/shared';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'wouter';
import { get } from '../api';
import { useConsole, useNow } from '../context';
import { relativeTime } from '../format';
import { useLoad } from '../load';
import { kindText } from '../parts/alertText';
import { Busy } from '../parts/Busy';
import { DoorGrid, useDoorText } from '../parts/DoorGrid';
import { DoorPanel } from '../parts/DoorPanel';
import {
  disagrees,
  lookOf,
  withDoorStates,
  type Door,
  type DoorStatesEvent,
} from '../parts/doorState';
import { ErrorNote } from '../parts/ErrorNote';
import { Severity } from '../parts/Severity';
import { StationActions } from '../parts/StationActions';
import { Time } from '../parts/Time';
import { useAlertStream } from '../parts/useAlertStream';

/** How often the page asks again while open, besides every alert of this station. */
const REFRESH_MS = 5000;

/**
 * A station: the door grid as the cabinet stands, each door's state, the terminals and
 * their link, the station's alerts; door and kiosk actions in the side panel, by role.
 */
export function StationScreen() {
  const { t } = useTranslation();
  const { code = '' } = useParams<{ code: string }>();
  const [round, setRound] = useState(0);
  const [selected, setSelected] = useState<number>();
  const station = useLoad(`${code}:${round}`, (signal) =>
    get(`/stations/${encodeURIComponent(code)}`, StationDetailSchema, signal),
  );
  const refresh = useCallback(() => setRound((r) => r + 1), []);
  useEffect(() => {
    const timer = setInterval(refresh, REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);
  // Door states pushed by the kiosk are folded in as they come, each door's only when
  // newer than what the last refresh read; kept a little while, refreshes catch up.
  const [pushed, setPushed] = useState<{ event: DoorStatesEvent; arrived: number }[]>([]);
  useAlertStream(
    ({ alert }) => {
      if (alert.station_code === code) refresh();
    },
    refresh,
    (event) => {
      if (event.station_code !== code) return;
      const now = Date.now();
      setPushed((list) => [
        ...list.filter((p) => now - p.arrived < 15_000),
        { event, arrived: now },
      ]);
    },
  );

  const s = station.data
    ? pushed.reduce((at, p) => withDoorStates(at, p.event), station.data)
    : undefined;
  if (!s)
    return (
      <section className="page">
        <h1>{t('station.title', { code })}</h1>
        {station.error ? (
          <ErrorNote error={station.error} onRetry={refresh} />
        ) : (
          <Busy what={t('station.loading')} />
        )}
      </section>
    );
  const live = s.terminals.some((term) => term.link.connected);
  const door = s.doors.find((d) => d.position === selected);
  // What needs a look, first: doors standing open, faults, sensors that disagree, and
  // parcels past their expiry (a take-out).
  const odd = s.doors.filter(
    (d) => disagrees(d) || ['open_now', 'fault', 'expired'].includes(lookOf(d)),
  );
  return (
    <section className="page">
      <div className="with-panel">
        <div>
          <h1>
            {s.code} <span className="muted">· {s.name}</span>
          </h1>
          <p className="muted small">
            {t('station.facts', {
              sn: s.cabinet_sn,
              phone: s.support_phone,
              free: s.free_storage_hours,
              max: s.max_storage_hours,
            })}
          </p>
          <Freshness at={station.at} failed={!!station.error} />
          {!live && (
            <p className="note warn" role="status">
              {t('station.linkDown')}
            </p>
          )}
          {odd.length > 0 && <NeedsLook doors={odd} onSelect={setSelected} />}
          <h2>{t('station.doors')}</h2>
          <Legend />
          <DoorGrid station={s} selected={selected} live={live} onSelect={setSelected} />
          <Terminals terminals={s.terminals} />
          <section aria-labelledby="station-alerts">
            <h2 id="station-alerts">{t('station.alerts')}</h2>
            {s.alerts.length === 0 ? (
              <p className="empty">{t('station.noAlerts')}</p>
            ) : (
              <ul className="plain">
                {s.alerts.map((a) => (
                  <li key={a.id}>
                    <Severity severity={a.severity} /> {kindText(t, a.kind)}
                    {a.door !== null && <> · {t('station.door', { door: a.door })}</>} ·{' '}
                    <Time at={a.created_at} />
                  </li>
                ))}
              </ul>
            )}
            <Link href={`/alerts?station=${encodeURIComponent(s.code)}&status=all`}>
              {t('station.alertHistory')}
            </Link>
          </section>
        </div>
        {door ? (
          <DoorPanel
            stationCode={s.code}
            stationName={s.name}
            door={door}
            live={live}
            onChanged={refresh}
            onClose={() => setSelected(undefined)}
          />
        ) : (
          <aside className="side-panel" aria-label={t('station.actions')}>
            <p className="muted">{t('station.pickDoor')}</p>
            <StationActions stationCode={s.code} />
          </aside>
        )}
      </div>
    </section>
  );
}

function Freshness({ at, failed }: { at: number | undefined; failed: boolean }) {
  const { t } = useTranslation();
  const now = useNow(5000);
  if (!at) return null;
  const age = relativeTime(new Date(at).toISOString(), now, t);
  return (
    <p className={failed ? 'note warn' : 'muted small'} role={failed ? 'status' : undefined}>
      {failed ? t('station.stale', { age }) : t('station.updated', { age })}
    </p>
  );
}

function NeedsLook({ doors, onSelect }: { doors: Door[]; onSelect: (p: number) => void }) {
  const { t } = useTranslation();
  const text = useDoorText();
  return (
    <section className="note warn" aria-labelledby="needs-look">
      <h2 id="needs-look">{t('station.needsLook')}</h2>
      <ul className="plain">
        {doors.map((d) => (
          <li key={d.position}>
            <button type="button" className="link" onClick={() => onSelect(d.position)}>
              {t('station.door', { door: d.position })}
            </button>{' '}
            {text(d)}
            {disagrees(d) && <> · {t('station.disagrees')}</>}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Legend() {
  const { t } = useTranslation();
  const looks = [
    'free',
    'holds',
    'overdue',
    'expired',
    'return_hold',
    'out_of_service',
    'fault',
    'open_now',
  ] as const;
  return (
    <ul className="legend" aria-label={t('station.legend')}>
      {looks.map((look) => (
        <li key={look} className={`door-swatch look-${look}`}>
          {t(`legend.${look}`)}
        </li>
      ))}
    </ul>
  );
}

function Terminals({ terminals }: { terminals: TerminalView[] }) {
  const { t } = useTranslation();
  const c = useConsole();
  return (
    <section aria-labelledby="terminals">
      <h2 id="terminals">{t('station.terminals')}</h2>
      {terminals.length === 0 ? (
        <p className="empty">{t('station.noTerminals')}</p>
      ) : (
        <table className="grid-table">
          <thead>
            <tr>
              <th scope="col">{t('terminals.status')}</th>
              <th scope="col">{t('terminals.heartbeat')}</th>
              <th scope="col">{t('terminals.version')}</th>
              <th scope="col">{t('terminals.link')}</th>
              <th scope="col">{t('terminals.id')}</th>
            </tr>
          </thead>
          <tbody>
            {terminals.map((term) => (
              <tr key={term.id}>
                <td>
                  <TerminalStatus terminal={term} />
                </td>
                <td>
                  {term.last_heartbeat_at ? (
                    <Time at={term.last_heartbeat_at} />
                  ) : (
                    t('terminals.never')
                  )}
                </td>
                <td>{term.app_version ?? '—'}</td>
                <td>
                  {term.link.connected ? (
                    <>
                      {t('terminals.linkUp')}
                      {term.link.since && (
                        <>
                          {' '}
                          · <Time at={term.link.since} />
                        </>
                      )}
                    </>
                  ) : (
                    <span className="strong">{t('terminals.linkDown')}</span>
                  )}
                </td>
                <td>
                  <code className="small">{term.id.slice(0, 8)}</code>
                  {c.can('terminals.manage') && (
                    <>
                      {' '}
                      <Link
                        href={`/people/terminals?station=${encodeURIComponent(term.station_code ?? '')}`}
                      >
                        {t('terminals.manage')}
                      </Link>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function TerminalStatus({ terminal }: { terminal: TerminalView }) {
  const { t } = useTranslation();
  if (terminal.revoked) return <span className="badge">{t('terminals.revoked')}</span>;
  if (terminal.status === 'offline')
    return (
      <span className="badge sev-critical">
        <span aria-hidden="true" className="mark">
          ▲
        </span>
        {t('terminals.offline')}
      </span>
    );
  if (terminal.status === 'disabled')
    return <span className="badge">{t('terminals.disabled')}</span>;
  return <span className="badge ok">{t('terminals.online')}</span>;
}
