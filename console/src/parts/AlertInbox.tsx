import { AlertListSchema, AlertSchema, type Alert } from '@locker/shared';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { ApiError, get, post, query } from '../api';
import { useConsole, useNow } from '../context';
import { relativeTime } from '../format';
import { historyOrder, inboxOrder, kindText } from './alertText';
import { Busy } from './Busy';
import { ErrorNote, useErrorText } from './ErrorNote';
import { Severity } from './Severity';
import { typing } from './Shortcuts';
import { SidePanel } from './SidePanel';
import { Time } from './Time';
import { useAlertStream, type StreamEvent } from './useAlertStream';

export type AlertStatusFilter = 'active' | 'open' | 'acknowledged' | 'resolved' | 'all';
export interface AlertFilter {
  status: AlertStatusFilter;
  station?: string | undefined;
  kind?: string | undefined;
  severity?: Alert['severity'] | undefined;
}

function matches(filter: AlertFilter, alert: Alert): boolean {
  const status =
    filter.status === 'all' ||
    (filter.status === 'active' ? alert.status !== 'resolved' : alert.status === filter.status);
  return (
    status &&
    (!filter.station || alert.station_code === filter.station) &&
    (!filter.kind || alert.kind === filter.kind) &&
    (!filter.severity || alert.severity === filter.severity)
  );
}

/**
 * The alert inbox: most severe first, then oldest; new alerts arrive live and wait behind
 * a "N new" bar, so the list never moves under the pointer or the keyboard focus. Changes
 * to a row already shown (a repeat, an acknowledgement) are made in place.
 */
export function AlertInbox({ filter, heading }: { filter: AlertFilter; heading: string }) {
  const { t } = useTranslation();
  const c = useConsole();
  const [items, setItems] = useState<Alert[]>([]);
  const [pending, setPending] = useState<Alert[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<ApiError>();
  const [loading, setLoading] = useState(true);
  const [loadedAt, setLoadedAt] = useState<number>();
  const [selected, setSelected] = useState<string>();
  const [intent, setIntent] = useState<'acknowledge' | undefined>();
  const table = useRef<HTMLTableElement>(null);
  const history = filter.status === 'resolved' || filter.status === 'all';
  const order = history ? historyOrder : inboxOrder;
  const filterKey = JSON.stringify(filter);

  const fetchPage = useCallback(
    async (cursor: string | null) => {
      const params = {
        status: filter.status,
        station: filter.station,
        kind: filter.kind,
        cursor,
        limit: 100,
      };
      return get(`/alerts${query(params)}`, AlertListSchema);
    },
    [filterKey],
  );

  const load = useCallback(() => {
    setLoading(true);
    fetchPage(null).then(
      (page) => {
        setItems(page.items.filter((a) => matches(filter, a)));
        setPending([]);
        setNext(page.next_cursor);
        setError(undefined);
        setLoading(false);
        setLoadedAt(Date.now());
      },
      (failure: unknown) => {
        setError(failure instanceof ApiError ? failure : new ApiError(0, 'unreadable', undefined));
        setLoading(false);
      },
    );
  }, [fetchPage]);
  useEffect(load, [load]);

  const onEvent = useCallback(
    ({ event, alert }: StreamEvent) => {
      let shown = false;
      setItems((list) => {
        const at = list.findIndex((a) => a.id === alert.id);
        if (at < 0) return list;
        shown = true;
        const copy = list.slice();
        copy[at] = alert;
        return copy;
      });
      setPending((list) => {
        const without = list.filter((a) => a.id !== alert.id);
        if (shown || !matches(filter, alert)) return without;
        return [...without, alert];
      });
      if (event === 'opened' && matches(filter, alert)) {
        c.announce(
          t('alerts.announce', {
            severity: t(`severity.${alert.severity}`),
            what: kindText(t, alert.kind),
            where: alert.station_code ?? t('alerts.network'),
          }),
        );
      }
    },
    [filterKey, c.announce, t],
  );
  const stream = useAlertStream(onEvent, load);

  const takeIn = useCallback(() => {
    setItems((list) => {
      const ids = new Set(pending.map((a) => a.id));
      const merged = [...list.filter((a) => !ids.has(a.id)), ...pending];
      return merged.filter((a) => matches(filter, a)).sort(order);
    });
    setPending([]);
  }, [pending, filterKey]);

  const more = () => {
    if (!next) return;
    fetchPage(next).then(
      (page) => {
        setItems((list) => [...list, ...page.items.filter((a) => matches(filter, a))]);
        setNext(page.next_cursor);
      },
      (failure: unknown) =>
        setError(failure instanceof ApiError ? failure : new ApiError(0, 'unreadable', undefined)),
    );
  };

  // Keyboard: j/k or arrows between rows, o/Enter opens, a acknowledges, n takes in new ones.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typing(e) || e.ctrlKey || e.metaKey || e.altKey) return;
      const rows = [...(table.current?.querySelectorAll<HTMLButtonElement>('.row-open') ?? [])];
      const at = rows.indexOf(document.activeElement as HTMLButtonElement);
      const inTable = at >= 0;
      if (e.key === 'j' || (inTable && e.key === 'ArrowDown')) {
        e.preventDefault();
        rows[Math.min(rows.length - 1, at + 1)]?.focus();
      } else if (e.key === 'k' || (inTable && e.key === 'ArrowUp')) {
        e.preventDefault();
        rows[Math.max(0, at - 1)]?.focus();
      } else if (e.key === 'o' && inTable) {
        rows[at]?.click();
      } else if (e.key === 'a' && c.can('alerts.manage')) {
        const id = inTable ? rows[at]?.dataset.id : selected;
        if (id) {
          e.preventDefault();
          setSelected(id);
          setIntent('acknowledge');
        }
      } else if (e.key === 'n' && pending.length > 0) {
        takeIn();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [c, pending.length, selected, takeIn]);

  const chosen = items.find((a) => a.id === selected);
  const replace = (alert: Alert) =>
    setItems((list) => list.map((a) => (a.id === alert.id ? alert : a)));

  return (
    <div className={chosen ? 'with-panel' : undefined}>
      <section className="inbox" aria-labelledby="inbox-heading">
        <div className="section-head">
          <h2 id="inbox-heading">{heading}</h2>
          <StreamStatus stream={stream} loadedAt={loadedAt} />
        </div>
        {pending.length > 0 && (
          <button type="button" className="new-bar" onClick={takeIn}>
            {t('alerts.newBar', { count: pending.length })}
          </button>
        )}
        {error && <ErrorNote error={error} onRetry={load} />}
        {loading && items.length === 0 ? (
          <Busy what={t('alerts.loading')} />
        ) : items.length === 0 && !error ? (
          <p className="empty">
            {t(history ? 'alerts.emptyHistory' : 'alerts.empty')}
            {!history && <ClearedLately />}
          </p>
        ) : (
          <table ref={table} className="grid-table">
            <thead>
              <tr>
                <th scope="col">{t('alerts.severity')}</th>
                <th scope="col">{t('alerts.what')}</th>
                <th scope="col">{t('alerts.where')}</th>
                <th scope="col">{t('alerts.since')}</th>
                <th scope="col" className="num">
                  {t('alerts.times')}
                </th>
                <th scope="col">{t('alerts.status')}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((alert) => (
                <tr
                  key={alert.id}
                  className={`${alert.id === selected ? 'selected' : ''} ${alert.status === 'resolved' && !history ? 'gone' : ''}`}
                >
                  <td>
                    <Severity severity={alert.severity} />
                  </td>
                  <td>
                    <button
                      type="button"
                      className="row-open"
                      data-id={alert.id}
                      aria-expanded={alert.id === selected}
                      onClick={() => {
                        setSelected(alert.id);
                        setIntent(undefined);
                      }}
                    >
                      {kindText(t, alert.kind)}
                    </button>
                    <div className="muted small clip">{alert.message}</div>
                  </td>
                  <td>
                    {alert.station_code ? (
                      <Link href={`/stations/${encodeURIComponent(alert.station_code)}`}>
                        {alert.station_code}
                      </Link>
                    ) : (
                      t('alerts.network')
                    )}
                    {alert.door !== null && <> · {t('station.door', { door: alert.door })}</>}
                  </td>
                  <td>
                    <Time at={alert.created_at} />
                  </td>
                  <td className="num">{alert.occurrences}</td>
                  <td>
                    <StatusText alert={alert} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {next && (
          <button type="button" onClick={more}>
            {t('common.more')}
          </button>
        )}
      </section>
      {chosen && (
        <AlertPanel
          alert={chosen}
          intent={intent}
          onChanged={replace}
          onClose={() => setSelected(undefined)}
        />
      )}
    </div>
  );
}

/** How many alerts cleared by themselves in the last hour: what an empty inbox hides. */
function ClearedLately() {
  const { t } = useTranslation();
  const [count, setCount] = useState<number>();
  useEffect(() => {
    const since = Date.now() - 3_600_000;
    get(`/alerts${query({ status: 'resolved', limit: 100 })}`, AlertListSchema).then(
      (page) =>
        setCount(
          page.items.filter(
            (a) =>
              a.resolved?.resolution === 'cleared' && new Date(a.resolved.at).getTime() > since,
          ).length,
        ),
      () => setCount(undefined),
    );
  }, []);
  if (!count) return null;
  return <> {t('alerts.clearedLately', { count })}</>;
}

function StreamStatus({
  stream,
  loadedAt,
}: {
  stream: ReturnType<typeof useAlertStream>;
  loadedAt: number | undefined;
}) {
  const { t } = useTranslation();
  const now = useNow(5000);
  if (stream.up)
    return (
      <span className="live-ok">
        <span aria-hidden="true">●</span> {t('alerts.live')}
      </span>
    );
  return (
    <span className="live-down" role="status">
      {t('alerts.streamDown', {
        since: relativeTime(new Date(stream.since).toISOString(), now, t),
        loaded: loadedAt ? relativeTime(new Date(loadedAt).toISOString(), now, t) : '—',
      })}
    </span>
  );
}

function StatusText({ alert }: { alert: Alert }) {
  const { t } = useTranslation();
  if (alert.status === 'acknowledged' && alert.acknowledged)
    return <span>{t('alerts.acknowledgedBy', { who: alert.acknowledged.by })}</span>;
  if (alert.status === 'resolved' && alert.resolved)
    return (
      <span>
        {alert.resolved.resolution === 'cleared'
          ? t('alerts.cleared')
          : t('alerts.resolvedBy', { who: alert.resolved.by })}
      </span>
    );
  return <span className="strong">{t('alertStatus.open')}</span>;
}

function AlertPanel({
  alert,
  intent,
  onChanged,
  onClose,
}: {
  alert: Alert;
  intent: 'acknowledge' | undefined;
  onChanged: (alert: Alert) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const c = useConsole();
  const errorText = useErrorText();
  const [note, setNote] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const noteField = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    setNote('');
    setError(undefined);
  }, [alert.id]);
  useEffect(() => {
    if (intent === 'acknowledge') setTimeout(() => noteField.current?.focus(), 0);
  }, [intent, alert.id]);
  const act = async (action: 'acknowledge' | 'resolve') => {
    setBusy(true);
    setError(undefined);
    try {
      const changed = await post(
        `/alerts/${alert.id}/${action}`,
        note.trim() ? { note: note.trim() } : {},
        AlertSchema,
      );
      onChanged(changed);
      setNote('');
      c.announce(t(action === 'acknowledge' ? 'alerts.acknowledgedNow' : 'alerts.resolvedNow'));
    } catch (failure) {
      setError(failure instanceof ApiError ? errorText(failure) : t('errors.unknown'));
    } finally {
      setBusy(false);
    }
  };
  const facts = useMemo(
    () => [
      [t('alerts.severity'), <Severity key="s" severity={alert.severity} />],
      [t('alerts.status'), <StatusText key="st" alert={alert} />],
      [
        t('alerts.where'),
        alert.station_code ? (
          <Link key="w" href={`/stations/${encodeURIComponent(alert.station_code)}`}>
            {alert.station_code}
            {alert.door !== null ? ` · ${t('station.door', { door: alert.door })}` : ''}
          </Link>
        ) : (
          t('alerts.network')
        ),
      ],
      [t('alerts.since'), <Time key="c" at={alert.created_at} exact />],
      [t('alerts.lastSeen'), <Time key="l" at={alert.last_seen_at} exact />],
      [t('alerts.times'), String(alert.occurrences)],
    ],
    [alert, t],
  );
  return (
    <SidePanel title={kindText(t, alert.kind)} onClose={onClose}>
      <p>{alert.message}</p>
      <dl className="facts">
        {facts.map(([label, value], i) => (
          <div key={i}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
        {alert.acknowledged && (
          <div>
            <dt>{t('alerts.acknowledged')}</dt>
            <dd>
              {alert.acknowledged.by}, <Time at={alert.acknowledged.at} />
              {alert.acknowledged.note && <q className="block">{alert.acknowledged.note}</q>}
            </dd>
          </div>
        )}
        {alert.resolved && (
          <div>
            <dt>{t('alerts.resolved')}</dt>
            <dd>
              {alert.resolved.by}, <Time at={alert.resolved.at} />
              {alert.resolved.note && <q className="block">{alert.resolved.note}</q>}
            </dd>
          </div>
        )}
      </dl>
      {c.can('alerts.manage') && alert.status !== 'resolved' && (
        <div className="actions">
          <label>
            {t('alerts.note')}
            <textarea
              ref={noteField}
              rows={3}
              maxLength={1000}
              value={note}
              onChange={(e) => setNote(e.target.value)}
            />
          </label>
          <div className="row">
            {alert.status === 'open' && (
              <button
                type="button"
                className="primary"
                disabled={busy}
                onClick={() => void act('acknowledge')}
              >
                {t('alerts.acknowledge')}
              </button>
            )}
            <button type="button" disabled={busy} onClick={() => void act('resolve')}>
              {t('alerts.resolve')}
            </button>
          </div>
          {error && (
            <p className="note error" role="alert">
              {error}
            </p>
          )}
        </div>
      )}
    </SidePanel>
  );
}
