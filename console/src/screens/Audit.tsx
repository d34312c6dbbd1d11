import { AuditListSchema, type AuditEntrySchema } from '@locker/shared';
import { useState } from 'react';
import { useSearch } from 'wouter';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { API, get, query } from '../api';
import { useConsole } from '../context';
import { zonedToIso } from '../format';
import { useLoad } from '../load';
import { Busy } from '../parts/Busy';
import { ErrorNote } from '../parts/ErrorNote';
import { Time } from '../parts/Time';

type Entry = z.infer<typeof AuditEntrySchema>;
interface Filter {
  actor: string;
  action: string;
  target: string;
  from: string;
  to: string;
}
const EMPTY: Filter = { actor: '', action: '', target: '', from: '', to: '' };

/**
 * The audit log, read-only: who did what, to what, why, with what outcome; filtered by
 * who, what and when on the server (where: the target, on the page shown), CSV export.
 */
export function AuditScreen() {
  const { t } = useTranslation();
  const { zone } = useConsole();
  // A link may set the first filter (a door's page: its service changes and opens).
  const search = new URLSearchParams(useSearch());
  const initial: Filter = {
    ...EMPTY,
    action: search.get('action') ?? '',
    target: search.get('target') ?? '',
  };
  const [draft, setDraft] = useState<Filter>(initial);
  const [filter, setFilter] = useState<Filter>(initial);
  const [pages, setPages] = useState<Entry[][]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const params = {
    actor: filter.actor || undefined,
    action: filter.action || undefined,
    from: filter.from ? zonedToIso(filter.from, zone) : undefined,
    to: filter.to ? zonedToIso(filter.to, zone) : undefined,
  };
  const key = JSON.stringify([params, cursor]);
  const page = useLoad(key, async (signal) => {
    const answer = await get(
      `/audit${query({ ...params, cursor, limit: 100 })}`,
      AuditListSchema,
      signal,
    );
    setPages((list) => (cursor === null ? [answer.items] : [...list, answer.items]));
    return answer;
  });
  const entries = pages
    .flat()
    .filter(
      (e) => !filter.target || (e.target ?? '').toLowerCase().includes(filter.target.toLowerCase()),
    );
  const field = (name: keyof Filter, label: string, type = 'text') => (
    <label>
      {label}
      <input
        type={type}
        value={draft[name]}
        size={type === 'text' ? 16 : undefined}
        onChange={(e) => setDraft({ ...draft, [name]: e.target.value })}
      />
    </label>
  );
  return (
    <section className="page">
      <h1>{t('audit.title')}</h1>
      <form
        className="toolbar"
        role="search"
        aria-label={t('audit.filters')}
        onSubmit={(e) => {
          e.preventDefault();
          setCursor(null);
          setPages([]);
          setFilter(draft);
        }}
      >
        {field('actor', t('audit.who'))}
        {field('action', t('audit.what'))}
        {field('target', t('audit.where'))}
        {field('from', t('audit.from'), 'datetime-local')}
        {field('to', t('audit.to'), 'datetime-local')}
        <button type="submit" className="primary">
          {t('common.apply')}
        </button>
        <a className="button" href={`${API}/audit/export${query(params)}`} download="audit.csv">
          {t('audit.export')}
        </a>
        <p className="muted small wide">{t('audit.hint', { zone })}</p>
      </form>
      {page.error && <ErrorNote error={page.error} onRetry={page.reload} />}
      {page.loading && entries.length === 0 && <Busy what={t('audit.loading')} />}
      {!page.loading && entries.length === 0 && !page.error && (
        <p className="empty">{t('audit.none')}</p>
      )}
      {entries.length > 0 && (
        <table className="grid-table audit">
          <thead>
            <tr>
              <th scope="col">{t('audit.when')}</th>
              <th scope="col">{t('audit.who')}</th>
              <th scope="col">{t('audit.what')}</th>
              <th scope="col">{t('audit.where')}</th>
              <th scope="col">{t('audit.why')}</th>
              <th scope="col">{t('audit.outcome')}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id} className={e.outcome === 'ok' ? undefined : 'row-alarm'}>
                <td>
                  <Time at={e.at} />
                </td>
                <td>
                  {e.actor}
                  <div className="muted small">{e.role}</div>
                </td>
                <td>
                  <code>{e.action}</code>
                </td>
                <td className="clip">
                  {e.target_type && <span className="muted small">{e.target_type} </span>}
                  {e.target ?? '—'}
                </td>
                <td className="clip">{e.reason ?? '—'}</td>
                <td>{t(`auditOutcome.${e.outcome}`)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page.data?.next_cursor && (
        <button
          type="button"
          disabled={page.loading}
          onClick={() => setCursor(page.data!.next_cursor)}
        >
          {t('common.more')}
        </button>
      )}
    </section>
  );
}
