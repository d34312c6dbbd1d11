import type { OpsPermission } from '@locker/shared';
import { useTranslation } from 'react-i18next';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { useConsole } from '../context';
import { CouriersTab } from './people/Couriers';
import { OperatorsTab } from './people/Operators';
import { OrganizationsTab } from './people/Organizations';
import { TerminalsTab } from './people/Terminals';

const TABS: {
  path: string;
  key: 'couriers' | 'operators' | 'organizations' | 'terminals';
  needs: OpsPermission;
}[] = [
  { path: '/couriers', key: 'couriers', needs: 'couriers.read' },
  { path: '/operators', key: 'operators', needs: 'operators.manage' },
  { path: '/organizations', key: 'organizations', needs: 'organizations.read' },
  { path: '/terminals', key: 'terminals', needs: 'terminals.read' },
];

/** People and keys: couriers, operators and roles, organizations and their keys, terminals. */
export function PeopleScreen() {
  const { t } = useTranslation();
  const c = useConsole();
  const [location] = useLocation();
  const tabs = TABS.filter((tab) => c.can(tab.needs));
  if (tabs.length === 0)
    return (
      <section className="page">
        <h1>{t('people.title')}</h1>
        <p className="note info">{t('people.nothing')}</p>
      </section>
    );
  return (
    <section className="page">
      <h1>{t('people.title')}</h1>
      <nav aria-label={t('people.sections')} className="subnav">
        <ul>
          {tabs.map((tab) => (
            <li key={tab.path}>
              <Link
                href={tab.path}
                aria-current={location.startsWith(tab.path) ? 'page' : undefined}
              >
                {t(`people.${tab.key}`)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <Switch>
        {c.can('couriers.read') && <Route path="/couriers" component={CouriersTab} />}
        {c.can('operators.manage') && <Route path="/operators" component={OperatorsTab} />}
        {c.can('organizations.read') && (
          <Route path="/organizations" component={OrganizationsTab} />
        )}
        {c.can('terminals.read') && <Route path="/terminals" component={TerminalsTab} />}
        <Route>
          <Redirect to={tabs[0]!.path} replace />
        </Route>
      </Switch>
    </section>
  );
}
