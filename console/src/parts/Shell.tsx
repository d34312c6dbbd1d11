import type { OpsPermission } from '@locker/shared';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { useConsole } from '../context';
import { LANGUAGES, isLanguage } from '../i18n';
import { zones } from '../prefs';
import { Shortcuts } from './Shortcuts';

const NAV: {
  href: string;
  key: 'home' | 'alerts' | 'fleet' | 'parcels' | 'people' | 'audit';
  needs: OpsPermission;
}[] = [
  { href: '/', key: 'home', needs: 'stations.read' },
  { href: '/alerts', key: 'alerts', needs: 'alerts.read' },
  { href: '/fleet', key: 'fleet', needs: 'stations.read' },
  { href: '/parcels', key: 'parcels', needs: 'parcels.read' },
  { href: '/people', key: 'people', needs: 'terminals.read' },
  { href: '/audit', key: 'audit', needs: 'audit.read' },
];

/** Whether a role sees the People and keys screen: any of its lists. */
export const seesPeople = (can: (p: OpsPermission) => boolean) =>
  can('couriers.read') ||
  can('operators.manage') ||
  can('organizations.read') ||
  can('terminals.read');

/** The frame of every signed-in screen: skip link, navigation, the operator's menu. */
export function Shell({ children, live }: { children: ReactNode; live: string }) {
  const { t } = useTranslation();
  const c = useConsole();
  const [location] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [location]);
  const current = (href: string) =>
    href === '/' ? location === '/' : location === href || location.startsWith(`${href}/`);
  const shown = NAV.filter((item) =>
    item.key === 'people' ? seesPeople(c.can) : c.can(item.needs),
  );
  return (
    <>
      <a className="skip" href="#main">
        {t('shell.skip')}
      </a>
      <header className="top">
        <span className="brand">{t('shell.brand')}</span>
        <nav aria-label={t('shell.nav')}>
          <ul>
            {shown.map((item) => (
              <li key={item.href}>
                <Link href={item.href} aria-current={current(item.href) ? 'page' : undefined}>
                  {t(`nav.${item.key}`)}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account">
          <button
            type="button"
            className="quiet"
            aria-expanded={menuOpen}
            aria-controls="account-menu"
            onClick={() => setMenuOpen((o) => !o)}
          >
            {c.operator.email} · {t(`roles.${c.operator.role}`)}
          </button>
          <div id="account-menu" className="account-menu" hidden={!menuOpen}>
            <label>
              {t('shell.language')}
              <select
                value={c.language}
                onChange={(e) => isLanguage(e.target.value) && c.setLanguage(e.target.value)}
              >
                {LANGUAGES.map((l) => (
                  <option key={l.code} value={l.code} lang={l.code}>
                    {l.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              {t('shell.zone')}
              <select value={c.zone} onChange={(e) => c.setZone(e.target.value)}>
                {[...new Set([c.zone, ...zones()])].map((z) => (
                  <option key={z} value={z}>
                    {z}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" onClick={() => void c.signOut(false)}>
              {t('shell.signOut')}
            </button>
            <button type="button" onClick={() => void c.signOut(true)}>
              {t('shell.signOutEverywhere')}
            </button>
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <div className="sr-only" aria-live="polite" aria-atomic="true">
        {live}
      </div>
      <Shortcuts />
    </>
  );
}
