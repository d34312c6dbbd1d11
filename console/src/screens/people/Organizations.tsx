import {
  ApiKeyIssuedSchema,
  ApiKeyListSchema,
  OrganizationCreatedSchema,
  OrganizationListSchema,
} from '@locker/shared';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { get, post, query } from '../../api';
import { useConsole } from '../../context';
import { useLoad } from '../../load';
import { Busy } from '../../parts/Busy';
import { ErrorNote } from '../../parts/ErrorNote';
import { OnceSecret } from '../../parts/OnceSecret';
import { Time } from '../../parts/Time';
import { ActionError, useAction } from '../../parts/useAction';

export function OrganizationsTab() {
  const { t } = useTranslation();
  const c = useConsole();
  const [round, setRound] = useState(0);
  const list = useLoad(`orgs:${round}`, (signal) =>
    get(`/organizations${query({ limit: 200 })}`, OrganizationListSchema, signal),
  );
  const create = useAction();
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<{ label: string; value: string }>();
  const [open, setOpen] = useState<string>();
  const manage = c.can('organizations.manage');
  return (
    <section aria-labelledby="orgs-heading">
      <h2 id="orgs-heading">{t('people.organizations')}</h2>
      {manage && (
        <form
          className="toolbar"
          aria-label={t('orgs.create')}
          onSubmit={(e) => {
            e.preventDefault();
            void create
              .run(() => post('/organizations', { name: name.trim() }, OrganizationCreatedSchema))
              .then((made) => {
                if (!made) return;
                setSecret({
                  label: t('orgs.keyFor', { name: made.organization.name }),
                  value: made.api_key,
                });
                setName('');
                setRound((r) => r + 1);
              });
          }}
        >
          <label>
            {t('orgs.name')}
            <input required value={name} size={26} onChange={(e) => setName(e.target.value)} />
          </label>
          <button type="submit" disabled={create.busy}>
            {t('orgs.create')}
          </button>
        </form>
      )}
      <ActionError error={create.error} />
      {secret && <OnceSecret label={secret.label} value={secret.value} />}
      {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
      {list.loading && !list.data && <Busy what={t('people.organizations')} />}
      {list.data?.items.length === 0 && <p className="empty">{t('orgs.none')}</p>}
      {list.data && list.data.items.length > 0 && (
        <table className="grid-table">
          <thead>
            <tr>
              <th scope="col">{t('orgs.name')}</th>
              <th scope="col" className="num">
                {t('orgs.activeKeys')}
              </th>
              <th scope="col">{t('common.created')}</th>
              {manage && <th scope="col">{t('orgs.keys')}</th>}
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((org) => (
              <tr key={org.id}>
                <th scope="row">
                  {org.name}
                  {org.sandbox && <span className="badge">{t('orgs.sandbox')}</span>}
                </th>
                <td className="num">{org.active_keys}</td>
                <td>
                  <Time at={org.created_at} />
                </td>
                {manage && (
                  <td>
                    <button
                      type="button"
                      className="quiet"
                      aria-expanded={open === org.id}
                      aria-label={t('orgs.keysOf', { name: org.name })}
                      onClick={() => setOpen(open === org.id ? undefined : org.id)}
                    >
                      {t('orgs.keys')}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open && manage && (
        <Keys
          organizationId={open}
          name={list.data?.items.find((o) => o.id === open)?.name ?? ''}
          onSecret={(value, label) => {
            setSecret({ label, value });
            setRound((r) => r + 1);
          }}
        />
      )}
    </section>
  );
}

function Keys({
  organizationId,
  name,
  onSecret,
}: {
  organizationId: string;
  name: string;
  onSecret: (value: string, label: string) => void;
}) {
  const { t } = useTranslation();
  const [round, setRound] = useState(0);
  const keys = useLoad(`${organizationId}:${round}`, (signal) =>
    get(`/organizations/${organizationId}/keys`, ApiKeyListSchema, signal),
  );
  const act = useAction();
  const issue = (rotate: boolean) =>
    (!rotate || window.confirm(t('confirm.rotate', { name }))) &&
    void act
      .run(() =>
        post(
          `/organizations/${organizationId}/keys${rotate ? '/rotate' : ''}`,
          {},
          ApiKeyIssuedSchema,
        ),
      )
      .then((made) => {
        if (!made) return;
        onSecret(made.api_key, t('orgs.keyFor', { name }));
        setRound((r) => r + 1);
      });
  return (
    <section aria-labelledby="keys-heading" className="panel-block">
      <h3 id="keys-heading">{t('orgs.keysTitle', { name })}</h3>
      <div className="row">
        <button type="button" disabled={act.busy} onClick={() => issue(false)}>
          {t('orgs.issue')}
        </button>
        <button type="button" disabled={act.busy} onClick={() => issue(true)}>
          {t('orgs.rotate')}
        </button>
      </div>
      <p className="muted small">{t('orgs.rotateHelp')}</p>
      <ActionError error={act.error} />
      {keys.error && <ErrorNote error={keys.error} onRetry={keys.reload} />}
      <table className="grid-table">
        <thead>
          <tr>
            <th scope="col">{t('orgs.key')}</th>
            <th scope="col">{t('common.created')}</th>
            <th scope="col">{t('common.state')}</th>
            <th scope="col">{t('common.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {keys.data?.items.map((key) => (
            <tr key={key.id}>
              <th scope="row">
                <code className="small">{key.id.slice(0, 8)}</code>
              </th>
              <td>
                <Time at={key.created_at} />
              </td>
              <td>
                {key.revoked_at ? (
                  <>
                    {t('orgs.revoked')} <Time at={key.revoked_at} />
                  </>
                ) : (
                  t('common.active')
                )}
              </td>
              <td>
                {!key.revoked_at && (
                  <button
                    type="button"
                    className="quiet"
                    disabled={act.busy}
                    aria-label={t('orgs.revokeNamed', { id: key.id.slice(0, 8) })}
                    onClick={() =>
                      window.confirm(t('confirm.revokeKey', { id: key.id.slice(0, 8), name })) &&
                      void act
                        .run(() =>
                          post(`/organizations/${organizationId}/keys/${key.id}/revoke`, {}),
                        )
                        .then(() => setRound((r) => r + 1))
                    }
                  >
                    {t('orgs.revoke')}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
