import type { Sql, TransactionSql } from '../db/connect';
import { isUuid } from '../domain/ids';
import { hashSecret, newSecret } from '../domain/secrets';
import { ProblemError } from '../http/problem';
import { audit, type Actor } from '../operators/audit';
import { authorize } from '../operators/authorize';
import { decodeCursor, pageOf } from './cursor';

interface OrgRow {
  id: string;
  name: string;
  sandbox: boolean;
  active_keys: number;
  created_at: Date;
  k: string;
}

const presentOrg = (o: OrgRow) => ({
  id: o.id,
  name: o.name,
  sandbox: o.sandbox,
  active_keys: o.active_keys,
  created_at: o.created_at.toISOString(),
});

interface KeyRow {
  id: string;
  created_at: Date;
  revoked_at: Date | null;
}

const presentKey = (k: KeyRow) => ({
  id: k.id,
  created_at: k.created_at.toISOString(),
  revoked_at: k.revoked_at ? k.revoked_at.toISOString() : null,
});

const orgColumns = (db: Sql | TransactionSql) => db`
  o.id, o.name, o.sandbox, o.created_at,
  (extract(epoch from o.created_at) * 1000000)::bigint::text as k,
  (select count(*)::int from api_keys k where k.organization_id = o.id and k.revoked_at is null) as active_keys`;

export async function listOrganizations(
  sql: Sql,
  query: { cursor?: string | undefined; limit?: number | undefined },
) {
  const limit = query.limit ?? 100;
  const after = query.cursor ? decodeCursor(query.cursor, ['digits', 'uuid']) : null;
  const rows = await sql<OrgRow[]>`
    select ${orgColumns(sql)} from organizations o
     where ${after === null ? sql`true` : sql`((extract(epoch from o.created_at) * 1000000)::bigint, o.id) > (${after[0]!}::bigint, ${after[1]!}::uuid)`}
     order by (extract(epoch from o.created_at) * 1000000)::bigint, o.id limit ${limit + 1}`;
  return pageOf(rows, limit, (r) => [r.k, r.id], presentOrg);
}

async function orgFor(tx: TransactionSql, id: string) {
  if (!isUuid(id)) throw new ProblemError('not_found', 'Organization not found.');
  const [org] = await tx<
    { id: string }[]
  >`select id from organizations where id = ${id} for update`;
  if (!org) throw new ProblemError('not_found', 'Organization not found.');
}

async function issueKey(tx: TransactionSql, organizationId: string) {
  const apiKey = newSecret('sk');
  const [key] = await tx<KeyRow[]>`
    insert into api_keys (organization_id, key_hash) values (${organizationId}, ${hashSecret(apiKey)})
    returning id, created_at, revoked_at`;
  return { key: presentKey(key!), apiKey };
}

/** A new organization and its first API key, answered once. */
export async function createOrganization(sql: Sql, actor: Actor, name: string) {
  const attempt = { action: 'organization.create', targetType: 'organization', target: name };
  await authorize(sql, actor, 'organizations.manage', attempt);
  return sql.begin(async (tx) => {
    const [created] = await tx<
      { id: string }[]
    >`insert into organizations (name) values (${name}) returning id`;
    const { key, apiKey } = await issueKey(tx, created!.id);
    await audit(tx, actor, {
      ...attempt,
      target: created!.id,
      outcome: 'ok',
      detail: { name, key_id: key.id },
    });
    const [org] = await tx<
      OrgRow[]
    >`select ${orgColumns(tx)} from organizations o where o.id = ${created!.id}`;
    return { organization: presentOrg(org!), key, api_key: apiKey };
  });
}

export async function listKeys(sql: Sql, organizationId: string) {
  if (!isUuid(organizationId)) throw new ProblemError('not_found', 'Organization not found.');
  const [org] = await sql`select 1 from organizations where id = ${organizationId}`;
  if (!org) throw new ProblemError('not_found', 'Organization not found.');
  const rows = await sql<KeyRow[]>`
    select id, created_at, revoked_at from api_keys where organization_id = ${organizationId}
     order by created_at, id`;
  return { items: rows.map(presentKey) };
}

/**
 * A new API key, answered once. `rotate`: every other active key of the organization is
 * revoked in the same transaction (the old key stops at the commit).
 */
export async function issueApiKey(sql: Sql, actor: Actor, organizationId: string, rotate: boolean) {
  const attempt = {
    action: rotate ? 'api_key.rotate' : 'api_key.issue',
    targetType: 'organization',
    target: organizationId,
  };
  await authorize(sql, actor, 'organizations.manage', attempt);
  return sql.begin(async (tx) => {
    await orgFor(tx, organizationId);
    const revoked = rotate
      ? await tx<{ id: string }[]>`
          update api_keys set revoked_at = now()
           where organization_id = ${organizationId} and revoked_at is null returning id`
      : [];
    const { key, apiKey } = await issueKey(tx, organizationId);
    await audit(tx, actor, {
      ...attempt,
      outcome: 'ok',
      detail: { key_id: key.id, revoked: revoked.map((r) => r.id) },
    });
    return {
      organization_id: organizationId,
      key,
      api_key: apiKey,
      revoked: revoked.map((r) => r.id),
    };
  });
}

export async function revokeApiKey(
  sql: Sql,
  actor: Actor,
  organizationId: string,
  keyId: string,
  reason?: string,
) {
  const attempt = {
    action: 'api_key.revoke',
    targetType: 'api_key',
    target: keyId,
    reason: reason ?? null,
  };
  await authorize(sql, actor, 'organizations.manage', attempt);
  if (!isUuid(keyId)) throw new ProblemError('not_found', 'API key not found.');
  return sql.begin(async (tx) => {
    await orgFor(tx, organizationId);
    const [key] = await tx<KeyRow[]>`
      update api_keys set revoked_at = coalesce(revoked_at, now())
       where id = ${keyId} and organization_id = ${organizationId}
      returning id, created_at, revoked_at`;
    if (!key) throw new ProblemError('not_found', 'API key not found.');
    await audit(tx, actor, {
      ...attempt,
      outcome: 'ok',
      detail: { organization_id: organizationId },
    });
    return presentKey(key);
  });
}
