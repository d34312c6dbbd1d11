import {
  type EnrolmentCode,
  EnrolmentCodeIssuedSchema,
  TERMINAL_FILTERS,
  TerminalCreatedSchema,
  TerminalListSchema,
} from '@locker/shared';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { get, post, query } from '../../api';
import { useConsole } from '../../context';
import { useLoad } from '../../load';
import { Busy } from '../../parts/Busy';
import { EnrolmentCard } from '../../parts/EnrolmentCard';
import { ErrorNote } from '../../parts/ErrorNote';
import { OnceSecret } from '../../parts/OnceSecret';
import { Time } from '../../parts/Time';
import { ActionError, useAction } from '../../parts/useAction';
import { TerminalStatus } from '../Station';

export function TerminalsTab() {
  const { t } = useTranslation();
  const c = useConsole();
  const search = new URLSearchParams(useSearch());
  const [station, setStation] = useState(search.get('station') ?? '');
  const [status, setStatus] = useState('');
  const [round, setRound] = useState(0);
  const list = useLoad(`${station}:${status}:${round}`, (signal) =>
    get(
      `/terminals${query({ station: station.trim() || undefined, status: status || undefined, limit: 200 })}`,
      TerminalListSchema,
      signal,
    ),
  );
  const create = useAction();
  const act = useAction();
  const [newStation, setNewStation] = useState('');
  const [reason, setReason] = useState('');
  const [issued, setIssued] = useState<{
    station: string;
    token?: string;
    enrolment: EnrolmentCode;
  }>();
  const manage = c.can('terminals.manage');
  const change = (id: string, what: 'disable' | 'enable' | 'revoke', station: string | null) =>
    (what === 'enable' ||
      window.confirm(
        t(what === 'revoke' ? 'confirm.revokeTerminal' : 'confirm.disableTerminal', {
          id: id.slice(0, 8),
          station: station ?? '—',
        }),
      )) &&
    void act
      .run(() => post(`/terminals/${id}/${what}`, reason.trim() ? { reason: reason.trim() } : {}))
      .then(() => setRound((r) => r + 1));
  const newCode = (id: string, station: string | null) =>
    window.confirm(
      t('confirm.newEnrolmentCode', { id: id.slice(0, 8), station: station ?? '—' }),
    ) &&
    void act
      .run(() => post(`/terminals/${id}/enrolment-code`, {}, EnrolmentCodeIssuedSchema))
      .then((made) => {
        if (!made) return;
        setIssued({ station: made.terminal.station_code ?? '—', enrolment: made.enrolment });
      });
  return (
    <section aria-labelledby="terminals-heading">
      <h2 id="terminals-heading">{t('people.terminals')}</h2>
      {manage && (
        <form
          className="toolbar"
          aria-label={t('terminals.create')}
          onSubmit={(e) => {
            e.preventDefault();
            void create
              .run(() => post('/terminals', { station: newStation.trim() }, TerminalCreatedSchema))
              .then((made) => {
                if (!made) return;
                setIssued({
                  station: made.terminal.station_code ?? newStation.trim(),
                  token: made.token,
                  enrolment: made.enrolment,
                });
                setNewStation('');
                setRound((r) => r + 1);
              });
          }}
        >
          <label>
            {t('terminals.forStation')}
            <input
              required
              value={newStation}
              size={14}
              onChange={(e) => setNewStation(e.target.value)}
            />
          </label>
          <button type="submit" disabled={create.busy}>
            {t('terminals.create')}
          </button>
        </form>
      )}
      <ActionError error={create.error} />
      {issued && (
        <>
          <EnrolmentCard
            station={issued.station}
            enrolment={issued.enrolment}
            replaced={!issued.token}
          />
          {issued.token && (
            <details>
              <summary>{t('terminals.byHand')}</summary>
              <OnceSecret
                label={t('terminals.token', { station: issued.station })}
                value={issued.token}
              />
              <p>{t('terminals.enrol')}</p>
              <pre className="config">
                {JSON.stringify({ serverUrl: location.origin, deviceToken: issued.token }, null, 2)}
              </pre>
            </details>
          )}
        </>
      )}
      <div className="toolbar">
        <label>
          {t('alerts.station')}
          <input
            type="search"
            value={station}
            size={14}
            onChange={(e) => setStation(e.target.value)}
          />
        </label>
        <label>
          {t('terminals.status')}
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">{t('common.any')}</option>
            {TERMINAL_FILTERS.map((f) => (
              <option key={f} value={f}>
                {t(`terminals.${f}`)}
              </option>
            ))}
          </select>
        </label>
        {manage && (
          <label>
            {t('terminals.reason')}
            <input value={reason} size={24} onChange={(e) => setReason(e.target.value)} />
          </label>
        )}
      </div>
      <ActionError error={act.error} />
      {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
      {list.loading && !list.data && <Busy what={t('people.terminals')} />}
      {list.data?.items.length === 0 && <p className="empty">{t('terminals.none')}</p>}
      {list.data && list.data.items.length > 0 && (
        <table className="grid-table">
          <thead>
            <tr>
              <th scope="col">{t('fleet.station')}</th>
              <th scope="col">{t('terminals.status')}</th>
              <th scope="col">{t('terminals.heartbeat')}</th>
              <th scope="col">{t('terminals.version')}</th>
              <th scope="col">{t('terminals.link')}</th>
              {manage && <th scope="col">{t('common.actions')}</th>}
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((term) => (
              <tr key={term.id}>
                <th scope="row">
                  {term.station_code ? (
                    <Link href={`~/stations/${encodeURIComponent(term.station_code)}`}>
                      {term.station_code}
                    </Link>
                  ) : (
                    '—'
                  )}{' '}
                  <code className="small">{term.id.slice(0, 8)}</code>
                </th>
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
                <td>{term.link.connected ? t('terminals.linkUp') : t('terminals.linkDown')}</td>
                {manage && (
                  <td>
                    {!term.revoked && (
                      <span className="row">
                        {term.status === 'disabled' ? (
                          <button
                            type="button"
                            className="quiet"
                            disabled={act.busy}
                            onClick={() => change(term.id, 'enable', term.station_code)}
                          >
                            {t('terminals.enable')}
                          </button>
                        ) : (
                          <button
                            type="button"
                            className="quiet"
                            disabled={act.busy}
                            onClick={() => change(term.id, 'disable', term.station_code)}
                          >
                            {t('terminals.disable')}
                          </button>
                        )}
                        <button
                          type="button"
                          className="quiet"
                          disabled={act.busy}
                          aria-label={t('terminals.newCodeNamed', {
                            station: term.station_code ?? '—',
                            id: term.id.slice(0, 8),
                          })}
                          onClick={() => newCode(term.id, term.station_code)}
                        >
                          {t('terminals.newCode')}
                        </button>
                        <button
                          type="button"
                          className="quiet"
                          disabled={act.busy}
                          onClick={() => change(term.id, 'revoke', term.station_code)}
                        >
                          {t('terminals.revoke')}
                        </button>
                      </span>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
