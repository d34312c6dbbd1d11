import {
  OPERATOR_ROLES,
  OperatorListSchema,
  OperatorSetupIssuedSchema,
  type OperatorRole,
} from '@locker/shared';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { get, post } from '../../api';
import { useConsole } from '../../context';
import { useLoad } from '../../load';
import { Busy } from '../../parts/Busy';
import { ErrorNote } from '../../parts/ErrorNote';
import { OnceSecret } from '../../parts/OnceSecret';
import { Time } from '../../parts/Time';
import { ActionError, useAction } from '../../parts/useAction';

export function OperatorsTab() {
  const { t } = useTranslation();
  const c = useConsole();
  const [round, setRound] = useState(0);
  const list = useLoad(`operators:${round}`, (signal) =>
    get('/operators', OperatorListSchema, signal),
  );
  const create = useAction();
  const act = useAction();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OperatorRole>('support');
  const [stations, setStations] = useState('');
  const [issued, setIssued] = useState<{ email: string; link: string }>();
  return (
    <section aria-labelledby="operators-heading">
      <h2 id="operators-heading">{t('people.operators')}</h2>
      <form
        className="toolbar"
        aria-label={t('operators.create')}
        onSubmit={(e) => {
          e.preventDefault();
          const codes = stations.split(/[\s,]+/).filter(Boolean);
          void create
            .run(() =>
              post(
                '/operators',
                {
                  email: email.trim(),
                  role,
                  ...(role === 'technician' ? { stations: codes } : {}),
                },
                OperatorSetupIssuedSchema,
              ),
            )
            .then((made) => {
              if (!made) return;
              setIssued({ email: made.operator.email, link: made.setup_link });
              setEmail('');
              setStations('');
              setRound((r) => r + 1);
            });
        }}
      >
        <label>
          {t('operators.email')}
          <input
            type="email"
            required
            value={email}
            size={26}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label>
          {t('operators.role')}
          <select value={role} onChange={(e) => setRole(e.target.value as OperatorRole)}>
            {OPERATOR_ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`roles.${r}`)}
              </option>
            ))}
          </select>
        </label>
        {role === 'technician' && (
          <label>
            {t('operators.stations')}
            <input
              required
              value={stations}
              size={20}
              onChange={(e) => setStations(e.target.value)}
            />
          </label>
        )}
        <button type="submit" disabled={create.busy}>
          {t('operators.create')}
        </button>
        <p className="muted small wide">{t('operators.roleHelp')}</p>
      </form>
      <ActionError error={create.error} />
      {issued && (
        <OnceSecret label={t('operators.setupLink', { email: issued.email })} value={issued.link} />
      )}
      {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
      {list.loading && !list.data && <Busy what={t('people.operators')} />}
      <ActionError error={act.error} />
      {list.data && (
        <table className="grid-table">
          <thead>
            <tr>
              <th scope="col">{t('operators.email')}</th>
              <th scope="col">{t('operators.role')}</th>
              <th scope="col">{t('operators.stations')}</th>
              <th scope="col">{t('common.state')}</th>
              <th scope="col">{t('common.created')}</th>
              <th scope="col">{t('common.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((o) => (
              <tr key={o.id}>
                <th scope="row">{o.email}</th>
                <td>{t(`roles.${o.role}`)}</td>
                <td>{o.stations.join(', ') || '—'}</td>
                <td>
                  {!o.active
                    ? t('common.inactive')
                    : !o.set_up
                      ? t('operators.awaitingSetup')
                      : o.second_factor_enrolled
                        ? t('operators.ready')
                        : t('operators.noFactor')}
                </td>
                <td>
                  <Time at={o.created_at} /> · {o.created_by}
                </td>
                <td>
                  {o.active && o.id !== c.operator.id && (
                    <span className="row">
                      <button
                        type="button"
                        className="quiet"
                        disabled={act.busy}
                        aria-label={t('operators.resetNamed', { email: o.email })}
                        onClick={() =>
                          window.confirm(t('confirm.reset', { email: o.email })) &&
                          void act
                            .run(() =>
                              post(
                                `/operators/${encodeURIComponent(o.email)}/reset`,
                                {},
                                OperatorSetupIssuedSchema,
                              ),
                            )
                            .then((made) => {
                              if (made)
                                setIssued({ email: made.operator.email, link: made.setup_link });
                              setRound((r) => r + 1);
                            })
                        }
                      >
                        {t('operators.reset')}
                      </button>
                      <button
                        type="button"
                        className="quiet"
                        disabled={act.busy}
                        aria-label={t('operators.deactivateNamed', { email: o.email })}
                        onClick={() =>
                          window.confirm(t('confirm.deactivateOperator', { email: o.email })) &&
                          void act
                            .run(() =>
                              post(`/operators/${encodeURIComponent(o.email)}/deactivate`, {}),
                            )
                            .then(() => setRound((r) => r + 1))
                        }
                      >
                        {t('common.deactivate')}
                      </button>
                    </span>
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
