import { ALERT_SEVERITIES, type Alert } from '@locker/shared';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { AlertInbox, type AlertStatusFilter } from '../parts/AlertInbox';
import { KNOWN_KINDS, kindText } from '../parts/alertText';

const STATUSES: AlertStatusFilter[] = ['active', 'open', 'acknowledged', 'resolved', 'all'];

/** Alerts: the live inbox with filters by status, kind, severity and station; history. */
export function AlertsScreen() {
  const { t } = useTranslation();
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const status = (STATUSES as string[]).includes(search.get('status') ?? '')
    ? (search.get('status') as AlertStatusFilter)
    : 'active';
  const severity = (ALERT_SEVERITIES as readonly string[]).includes(search.get('severity') ?? '')
    ? (search.get('severity') as Alert['severity'])
    : undefined;
  const kind = search.get('kind') ?? undefined;
  const station = search.get('station') ?? undefined;
  const [stationText, setStationText] = useState(station ?? '');
  const set = (key: string, value: string | undefined) => {
    const nextSearch = new URLSearchParams(search);
    if (value) nextSearch.set(key, value);
    else nextSearch.delete(key);
    navigate(`/alerts?${nextSearch.toString()}`, { replace: true });
  };
  return (
    <section className="page">
      <h1>{t('alerts.title')}</h1>
      <form
        className="toolbar"
        role="search"
        aria-label={t('alerts.filters')}
        onSubmit={(e) => {
          e.preventDefault();
          set('station', stationText.trim() || undefined);
        }}
      >
        <label>
          {t('alerts.status')}
          <select
            value={status}
            onChange={(e) =>
              set('status', e.target.value === 'active' ? undefined : e.target.value)
            }
          >
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`alertFilter.${s}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('alerts.severity')}
          <select
            value={severity ?? ''}
            onChange={(e) => set('severity', e.target.value || undefined)}
          >
            <option value="">{t('common.any')}</option>
            {ALERT_SEVERITIES.map((s) => (
              <option key={s} value={s}>
                {t(`severity.${s}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('alerts.kind')}
          <select value={kind ?? ''} onChange={(e) => set('kind', e.target.value || undefined)}>
            <option value="">{t('common.any')}</option>
            {KNOWN_KINDS.map((k) => (
              <option key={k} value={k}>
                {kindText(t, k)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('alerts.station')}
          <input value={stationText} onChange={(e) => setStationText(e.target.value)} size={12} />
        </label>
        <button type="submit">{t('common.apply')}</button>
      </form>
      <AlertInbox
        key={`${status}|${severity}|${kind}|${station}`}
        filter={{ status, severity, kind, station }}
        heading={t(`alertFilter.${status}`)}
      />
    </section>
  );
}
