import { STATION_SORTS, StationListSchema, type StationSummary } from '@locker/shared';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearch } from 'wouter';
import { get, query } from '../api';
import { number } from '../format';
import { useLoad } from '../load';
import { Busy } from '../parts/Busy';
import { Counts } from '../parts/Counts';
import { ErrorNote } from '../parts/ErrorNote';
import { typing } from '../parts/Shortcuts';

const PAGE = 100;
const SIZES = ['S', 'M', 'L', 'XL'] as const;
type Sort = (typeof STATION_SORTS)[number];

const total = (counts: StationSummary['doors']['free']) =>
  counts.S + counts.M + counts.L + counts.XL + counts.unknown;

/**
 * Fleet: every station at a glance, paged on the server (a page is one statement whatever
 * the fleet's size), filtered and sorted there; the filters live in the address, so the
 * counts on top can link to exactly their list.
 */
export function FleetScreen() {
  const { t, i18n } = useTranslation();
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const q = search.get('q') ?? '';
  const offline = search.get('offline') === 'true';
  const alerts = search.get('alerts') === 'true';
  const sort: Sort = (STATION_SORTS as readonly string[]).includes(search.get('sort') ?? '')
    ? (search.get('sort') as Sort)
    : 'code';
  const [text, setText] = useState(q);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const field = useRef<HTMLInputElement>(null);
  const filterKey = `${q}|${offline}|${alerts}|${sort}`;
  useEffect(() => setCursors([null]), [filterKey]);
  const cursor = cursors[cursors.length - 1] ?? null;

  const set = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(search);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    const text = next.toString();
    navigate(`/fleet${text ? `?${text}` : ''}`, { replace: true });
  };
  // Typing filters as it goes, each keystroke at once (no debounce: the request before
  // is aborted, and a page is one cheap statement).
  useEffect(() => {
    if (text.trim() !== q) set({ q: text.trim() || undefined });
  }, [text]);
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

  const page = useLoad(`${filterKey}|${cursor}`, (signal) =>
    get(
      `/stations${query({
        q: q || undefined,
        offline: offline ? 'true' : undefined,
        has_alerts: alerts ? 'true' : undefined,
        sort,
        cursor,
        limit: PAGE,
      })}`,
      StationListSchema,
      signal,
    ),
  );
  const first = (cursors.length - 1) * PAGE + 1;
  const items = page.data?.items ?? [];

  return (
    <section className="page">
      <h1>{t('fleet.title')}</h1>
      <Counts />
      <form
        className="toolbar"
        role="search"
        aria-label={t('fleet.filters')}
        onSubmit={(e) => e.preventDefault()}
      >
        <label>
          {t('fleet.search')}
          <input
            ref={field}
            type="search"
            value={text}
            placeholder={t('fleet.searchHint')}
            onChange={(e) => setText(e.target.value)}
            size={24}
          />
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={offline}
            onChange={(e) => set({ offline: e.target.checked ? 'true' : undefined })}
          />
          {t('fleet.offlineOnly')}
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={alerts}
            onChange={(e) => set({ alerts: e.target.checked ? 'true' : undefined })}
          />
          {t('fleet.alertsOnly')}
        </label>
        <label>
          {t('fleet.sort')}
          <select
            value={sort}
            onChange={(e) => set({ sort: e.target.value === 'code' ? undefined : e.target.value })}
          >
            {STATION_SORTS.map((s) => (
              <option key={s} value={s}>
                {t(`fleetSort.${s}`)}
              </option>
            ))}
          </select>
        </label>
      </form>
      {page.error && <ErrorNote error={page.error} onRetry={page.reload} />}
      <div className="table-status" role="status" aria-live="polite">
        {page.loading ? (
          <Busy what={t('fleet.loading')} />
        ) : page.data ? (
          items.length === 0 ? (
            t('fleet.none')
          ) : (
            t('fleet.range', {
              from: number(first, i18n.language),
              to: number(first + items.length - 1, i18n.language),
            })
          )
        ) : null}
      </div>
      {items.length > 0 && (
        <table className="grid-table fleet" aria-busy={page.loading}>
          <caption className="sr-only">{t('fleet.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('fleet.station')}</th>
              <th scope="col">{t('fleet.terminals')}</th>
              <th scope="col" className="num">
                {t('fleet.alerts')}
              </th>
              <th scope="col">{t('fleet.free')}</th>
              <th scope="col" className="num">
                {t('fleet.occupied')}
              </th>
              <th scope="col" className="num">
                {t('fleet.outOfService')}
              </th>
              <th scope="col" className="num">
                {t('fleet.overdue')}
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((s) => (
              <StationRow key={s.id} station={s} />
            ))}
          </tbody>
        </table>
      )}
      <nav className="pager" aria-label={t('fleet.pages')}>
        <button
          type="button"
          disabled={cursors.length === 1}
          onClick={() => setCursors((c) => c.slice(0, -1))}
        >
          {t('common.previous')}
        </button>
        <span>{t('fleet.page', { page: cursors.length })}</span>
        <button
          type="button"
          disabled={!page.data?.next_cursor}
          onClick={() =>
            page.data?.next_cursor && setCursors((c) => [...c, page.data!.next_cursor])
          }
        >
          {t('common.next')}
        </button>
      </nav>
    </section>
  );
}

function StationRow({ station: s }: { station: StationSummary }) {
  const { t } = useTranslation();
  const doors = total(s.doors.free) + total(s.doors.occupied) + total(s.doors.out_of_service);
  const occupied = total(s.doors.occupied);
  const down = s.terminals.online === 0 && s.terminals.offline + s.terminals.disabled > 0;
  return (
    <tr className={s.terminals.offline > 0 ? 'row-alarm' : undefined}>
      <th scope="row">
        <Link href={`/stations/${encodeURIComponent(s.code)}`} className="strong">
          {s.code}
        </Link>
        <div className="muted small clip">{s.name}</div>
      </th>
      <td>
        {s.terminals.offline > 0 ? (
          <span className="badge sev-critical">
            <span aria-hidden="true" className="mark">
              ▲
            </span>
            {down ? t('fleet.offline') : t('fleet.someOffline', { count: s.terminals.offline })}
          </span>
        ) : s.terminals.online > 0 ? (
          <span className="badge ok">{t('fleet.online')}</span>
        ) : (
          <span className="muted">{t('fleet.noTerminal')}</span>
        )}
      </td>
      <td className="num">{s.open_alerts > 0 ? <strong>{s.open_alerts}</strong> : '0'}</td>
      <td>
        <span className="sizes">
          {SIZES.map((size) => (
            <span key={size} className={s.doors.free[size] === 0 ? 'size none' : 'size'}>
              {size} {s.doors.free[size]}
            </span>
          ))}
        </span>
      </td>
      <td className="num">
        {occupied}/{doors}
      </td>
      <td className="num">{total(s.doors.out_of_service)}</td>
      <td className="num">
        {s.parcels_overdue}
        {s.parcels_expired > 0 && (
          <span className="muted small"> ({t('fleet.expired', { count: s.parcels_expired })})</span>
        )}
      </td>
    </tr>
  );
}
