import { CourierListSchema } from '@locker/shared';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { get, post, query } from '../../api';
import { useConsole } from '../../context';
import { useLoad } from '../../load';
import { Busy } from '../../parts/Busy';
import { ErrorNote } from '../../parts/ErrorNote';
import { Time } from '../../parts/Time';
import { ActionError, useAction } from '../../parts/useAction';

export function CouriersTab() {
  const { t } = useTranslation();
  const c = useConsole();
  const [q, setQ] = useState('');
  const [round, setRound] = useState(0);
  const list = useLoad(`${q}:${round}`, (signal) =>
    get(`/couriers${query({ q: q || undefined, limit: 200 })}`, CourierListSchema, signal),
  );
  const create = useAction();
  const act = useAction();
  const [number, setNumber] = useState('');
  const [name, setName] = useState('');
  return (
    <section aria-labelledby="couriers-heading">
      <h2 id="couriers-heading">{t('people.couriers')}</h2>
      {c.can('couriers.manage') && (
        <form
          className="toolbar"
          aria-label={t('couriers.create')}
          onSubmit={(e) => {
            e.preventDefault();
            void create
              .run(() => post('/couriers', { number: number.trim(), name: name.trim() }))
              .then((made) => {
                if (made === undefined) return;
                setNumber('');
                setName('');
                setRound((r) => r + 1);
                c.announce(t('couriers.created'));
              });
          }}
        >
          <label>
            {t('couriers.number')}
            <input required value={number} size={10} onChange={(e) => setNumber(e.target.value)} />
          </label>
          <label>
            {t('couriers.name')}
            <input required value={name} size={24} onChange={(e) => setName(e.target.value)} />
          </label>
          <button type="submit" disabled={create.busy}>
            {t('couriers.create')}
          </button>
        </form>
      )}
      <ActionError error={create.error} />
      <label className="inline">
        {t('common.filter')}
        <input type="search" value={q} onChange={(e) => setQ(e.target.value)} />
      </label>
      {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
      {list.loading && !list.data && <Busy what={t('people.couriers')} />}
      {list.data?.items.length === 0 && <p className="empty">{t('couriers.none')}</p>}
      <ActionError error={act.error} />
      {list.data && list.data.items.length > 0 && (
        <table className="grid-table">
          <thead>
            <tr>
              <th scope="col">{t('couriers.number')}</th>
              <th scope="col">{t('couriers.name')}</th>
              <th scope="col">{t('common.state')}</th>
              <th scope="col">{t('common.created')}</th>
              {c.can('couriers.manage') && <th scope="col">{t('common.actions')}</th>}
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((courier) => (
              <tr key={courier.id}>
                <th scope="row" className="tabular">
                  {courier.number}
                </th>
                <td>{courier.name}</td>
                <td>{courier.active ? t('common.active') : t('common.inactive')}</td>
                <td>
                  <Time at={courier.created_at} />
                </td>
                {c.can('couriers.manage') && (
                  <td>
                    {courier.active && (
                      <button
                        type="button"
                        className="quiet"
                        disabled={act.busy}
                        aria-label={t('couriers.deactivateNamed', { name: courier.name })}
                        onClick={() =>
                          window.confirm(
                            t('confirm.deactivateCourier', {
                              name: courier.name,
                              number: courier.number,
                            }),
                          ) &&
                          void act
                            .run(() =>
                              post(
                                `/couriers/${encodeURIComponent(courier.number)}/deactivate`,
                                {},
                              ),
                            )
                            .then(() => setRound((r) => r + 1))
                        }
                      >
                        {t('common.deactivate')}
                      </button>
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
