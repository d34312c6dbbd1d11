import { AGE_GROUPS, OverdueListSchema, ParcelSearchSchema, type Parcel } from '@locker/shared';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearch } from 'wouter';
import { get, query } from '../api';
import { useConsole } from '../context';
import { csv, download, exactTime } from '../format';
import { useLoad } from '../load';
import { Busy } from '../parts/Busy';
import { ErrorNote } from '../parts/ErrorNote';
import { typing } from '../parts/Shortcuts';
import { SidePanel } from '../parts/SidePanel';
import { statusText } from '../parts/statusText';
import { Time } from '../parts/Time';

/**
 * Parcels: one field for a tracking number, a merchant's reference, the last digits of a
 * phone or a station code (the answer says which it matched); a parcel's whole history as
 * a timeline; overdue parcels per station in ageing groups, exportable.
 */
export function ParcelsScreen() {
  const { t } = useTranslation();
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const q = search.get('q') ?? '';
  const overdueStation = search.get('overdue') ?? '';
  const [text, setText] = useState(q);
  const [stationText, setStationText] = useState(overdueStation);
  const [selected, setSelected] = useState<string>();
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => setText(q), [q]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === '/' && !typing(e)) {
        e.preventDefault();
        field.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value) next.set(key, value);
    else next.delete(key);
    navigate(`/parcels?${next.toString()}`);
  };
  const found = useLoad(q ? `q:${q}` : null, (signal) =>
    get(`/parcels${query({ q, limit: 50 })}`, ParcelSearchSchema, signal),
  );
  const chosen = found.data?.items.find((p) => p.id === selected);
  return (
    <section className="page">
      <h1>{t('parcels.title')}</h1>
      <div className={chosen ? 'with-panel' : undefined}>
        <div>
          <form
            className="toolbar"
            role="search"
            aria-label={t('parcels.title')}
            onSubmit={(e) => {
              e.preventDefault();
              setSelected(undefined);
              set('q', text.trim());
            }}
          >
            <label>
              {t('parcels.search')}
              <input
                ref={field}
                type="search"
                value={text}
                size={32}
                aria-describedby="parcels-hint"
                onChange={(e) => setText(e.target.value)}
              />
            </label>
            <button type="submit" className="primary">
              {t('parcels.find')}
            </button>
            <p id="parcels-hint" className="muted small wide">
              {t('parcels.hint')}
            </p>
          </form>
          <div role="status" aria-live="polite">
            {found.loading && <Busy what={t('parcels.searching')} />}
            {!found.loading && found.data && q && (
              <p className={found.data.items.length ? '' : 'empty'}>
                {found.data.items.length === 0
                  ? t('parcels.none', { q })
                  : t('parcels.matched', {
                      count: found.data.items.length,
                      how: found.data.matched ? t(`parcelMatch.${found.data.matched}`) : '',
                    })}
              </p>
            )}
          </div>
          {found.error && <ErrorNote error={found.error} onRetry={found.reload} />}
          {found.data && found.data.items.length > 0 && (
            <ParcelTable parcels={found.data.items} selected={selected} onSelect={setSelected} />
          )}
          <Overdue
            station={overdueStation}
            text={stationText}
            setText={setStationText}
            onSubmit={() => set('overdue', stationText.trim())}
          />
        </div>
        {chosen && <ParcelPanel parcel={chosen} onClose={() => setSelected(undefined)} />}
      </div>
    </section>
  );
}

function ParcelTable({
  parcels,
  selected,
  onSelect,
}: {
  parcels: Parcel[];
  selected: string | undefined;
  onSelect: (id: string) => void;
}) {
  const { t } = useTranslation();
  return (
    <table className="grid-table">
      <thead>
        <tr>
          <th scope="col">{t('parcels.tracking')}</th>
          <th scope="col">{t('parcels.status')}</th>
          <th scope="col">{t('parcels.where')}</th>
          <th scope="col">{t('parcels.recipient')}</th>
          <th scope="col">{t('parcels.merchant')}</th>
          <th scope="col">{t('parcels.statusAt')}</th>
        </tr>
      </thead>
      <tbody>
        {parcels.map((p) => (
          <tr key={p.id} className={p.id === selected ? 'selected' : undefined}>
            <th scope="row">
              <button
                type="button"
                className="row-open"
                aria-expanded={p.id === selected}
                onClick={() => onSelect(p.id)}
              >
                {p.tracking_number}
              </button>
            </th>
            <td>
              {statusText(t, p.status)}
              {p.overdue_since && <span className="badge sev-warning">{t('parcels.overdue')}</span>}
            </td>
            <td>
              <Link href={`/stations/${encodeURIComponent(p.station.code)}`}>{p.station.code}</Link>
              {p.door !== null && <> · {t('station.door', { door: p.door })}</>}
            </td>
            <td>
              {p.recipient_name}
              <div className="muted small tabular">{p.recipient_phone}</div>
            </td>
            <td>
              {p.organization.name}
              {p.merchant_order_reference && (
                <div className="muted small">{p.merchant_order_reference}</div>
              )}
            </td>
            <td>
              <Time at={p.status_at} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ParcelPanel({ parcel: p, onClose }: { parcel: Parcel; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <SidePanel title={t('parcels.panelTitle', { tracking: p.tracking_number })} onClose={onClose}>
      <p className="strong">
        {statusText(t, p.status)} · {p.station.code} {p.station.name}
        {p.door !== null && <> · {t('station.door', { door: p.door })}</>}
      </p>
      <dl className="facts">
        <div>
          <dt>{t('parcels.recipient')}</dt>
          <dd>
            {p.recipient_name} · <span className="tabular">{p.recipient_phone}</span>
          </dd>
        </div>
        <div>
          <dt>{t('parcels.merchant')}</dt>
          <dd>
            {p.organization.name}
            {p.merchant_order_reference && <> · {p.merchant_order_reference}</>}
          </dd>
        </div>
        <div>
          <dt>{t('parcels.size')}</dt>
          <dd>{p.parcel_size}</dd>
        </div>
        {p.deposited_at && (
          <div>
            <dt>{t('parcels.deposited')}</dt>
            <dd>
              <Time at={p.deposited_at} exact />
            </dd>
          </div>
        )}
        {p.overdue_since && (
          <div>
            <dt>{t('station.overdueSince')}</dt>
            <dd>
              <Time at={p.overdue_since} exact />
            </dd>
          </div>
        )}
        {p.expires_at && (
          <div>
            <dt>{t('station.expires')}</dt>
            <dd>
              <Time at={p.expires_at} exact />
            </dd>
          </div>
        )}
      </dl>
      <h3>{t('parcels.timeline')}</h3>
      <ol className="timeline">
        {p.history.map((h, i) => (
          <li key={i}>
            <span className="strong">{statusText(t, h.status)}</span>
            {h.station_code && <> · {h.station_code}</>}
            <div>
              <Time at={h.occurred_at} exact />
            </div>
          </li>
        ))}
      </ol>
    </SidePanel>
  );
}

function Overdue({
  station,
  text,
  setText,
  onSubmit,
}: {
  station: string;
  text: string;
  setText: (text: string) => void;
  onSubmit: () => void;
}) {
  const { t, i18n } = useTranslation();
  const { zone } = useConsole();
  const list = useLoad(station ? `overdue:${station}` : null, (signal) =>
    get(`/stations/${encodeURIComponent(station)}/overdue`, OverdueListSchema, signal),
  );
  const exportCsv = () => {
    if (!list.data) return;
    const rows = [
      [
        'tracking_number',
        'door',
        'size',
        'age_group',
        'expired',
        'overdue_since',
        'expires_at',
        'recipient',
        'merchant',
      ],
      ...list.data.items.map((p) => [
        p.tracking_number,
        p.door,
        p.parcel_size,
        p.age_group,
        p.expired ? 'yes' : 'no',
        p.overdue_since ? exactTime(p.overdue_since, zone, i18n.language) : null,
        p.expires_at ? exactTime(p.expires_at, zone, i18n.language) : null,
        p.recipient_name,
        p.organization.name,
      ]),
    ];
    download(`overdue-${list.data.station_code}.csv`, csv(rows));
  };
  return (
    <section aria-labelledby="overdue-heading" className="overdue">
      <h2 id="overdue-heading">{t('parcels.overdueTitle')}</h2>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit();
        }}
      >
        <label>
          {t('parcels.overdueStation')}
          <input value={text} size={14} onChange={(e) => setText(e.target.value)} />
        </label>
        <button type="submit">{t('parcels.showOverdue')}</button>
      </form>
      {list.loading && <Busy what={t('parcels.overdueLoading')} />}
      {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
      {list.data && (
        <>
          <ul className="counts small-counts" aria-label={t('parcels.ageGroups')}>
            {AGE_GROUPS.map((g) => (
              <li key={g} className={`count tone-${list.data!.groups[g] ? 'warning' : 'calm'}`}>
                <div>
                  <span className="count-value">{list.data!.groups[g]}</span>
                  <span className="count-label">{t(`ageGroup.${g}`)}</span>
                </div>
              </li>
            ))}
          </ul>
          {list.data.items.length === 0 ? (
            <p className="empty">{t('parcels.noOverdue', { station: list.data.station_code })}</p>
          ) : (
            <>
              <button type="button" onClick={exportCsv}>
                {t('parcels.export')}
              </button>
              <table className="grid-table">
                <thead>
                  <tr>
                    <th scope="col">{t('station.doorLabel')}</th>
                    <th scope="col">{t('parcels.tracking')}</th>
                    <th scope="col">{t('parcels.age')}</th>
                    <th scope="col">{t('station.overdueSince')}</th>
                    <th scope="col">{t('parcels.recipient')}</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.items.map((p) => (
                    <tr key={p.id}>
                      <td className="num">{p.door ?? '—'}</td>
                      <th scope="row">{p.tracking_number}</th>
                      <td>
                        {t(`ageGroup.${p.age_group}`)}
                        {p.expired && (
                          <span className="badge sev-critical">{t('parcels.expired')}</span>
                        )}
                      </td>
                      <td>{p.overdue_since ? <Time at={p.overdue_since} /> : '—'}</td>
                      <td>
                        {p.recipient_name}{' '}
                        <span className="muted small tabular">{p.recipient_phone}</span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
        </>
      )}
    </section>
  );
}
