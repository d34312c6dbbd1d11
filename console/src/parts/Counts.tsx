import { FleetOverviewSchema } from '@locker/shared';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { get } from '../api';
import { number } from '../format';
import { useLoad } from '../load';
import { ErrorNote } from './ErrorNote';

/**
 * The network's counts that need someone, each a link to the list filtered to exactly
 * it where such a list exists.
 */
export function Counts({ refreshKey = 0 }: { refreshKey?: number }) {
  const { t, i18n } = useTranslation();
  const overview = useLoad(`overview:${refreshKey}`, (signal) =>
    get('/overview', FleetOverviewSchema, signal),
  );
  if (overview.error && !overview.data)
    return <ErrorNote error={overview.error} onRetry={overview.reload} />;
  const o = overview.data;
  const n = (value: number | undefined) =>
    value === undefined ? '…' : number(value, i18n.language);
  const tiles: { label: string; value: string; href?: string; tone: string; zero: boolean }[] = [
    {
      label: t('counts.critical'),
      value: n(o?.alerts_open.critical),
      href: '/alerts?severity=critical',
      tone: 'critical',
      zero: o?.alerts_open.critical === 0,
    },
    {
      label: t('counts.warning'),
      value: n(o?.alerts_open.warning),
      href: '/alerts?severity=warning',
      tone: 'warning',
      zero: o?.alerts_open.warning === 0,
    },
    {
      label: t('counts.offline'),
      value: n(o?.stations_offline),
      href: '/fleet?offline=true&sort=offline_first',
      tone: 'critical',
      zero: o?.stations_offline === 0,
    },
    {
      label: t('counts.outOfService'),
      value: n(o?.doors_out_of_service),
      tone: 'warning',
      zero: o?.doors_out_of_service === 0,
    },
    {
      label: t('counts.overdue'),
      value: n(o?.parcels_overdue),
      href: '/fleet?sort=overdue_first',
      tone: 'warning',
      zero: o?.parcels_overdue === 0,
    },
    {
      label: t('counts.approvals'),
      value: n(o?.remote_actions_awaiting_approval),
      tone: 'info',
      zero: o?.remote_actions_awaiting_approval === 0,
    },
    {
      label: t('counts.stations'),
      value: n(o?.stations),
      href: '/fleet',
      tone: 'info',
      zero: true,
    },
  ];
  return (
    <ul className="counts" aria-label={t('counts.label')} aria-busy={overview.loading}>
      {tiles.map((tile) => {
        const body = (
          <>
            <span className="count-value">{tile.value}</span>
            <span className="count-label">{tile.label}</span>
          </>
        );
        return (
          <li key={tile.label} className={`count tone-${tile.zero ? 'calm' : tile.tone}`}>
            {tile.href ? <Link href={tile.href}>{body}</Link> : <div>{body}</div>}
          </li>
        );
      })}
    </ul>
  );
}
