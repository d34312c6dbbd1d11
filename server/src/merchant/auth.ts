import type { Middleware } from 'koa';
import type { Sql } from '../db/connect';
import { hashSecret } from '../domain/secrets';
import { bearerToken } from '../http/bearer';
import { problem } from '../http/problem';

export interface Organization {
  id: string;
  name: string;
  /** A sandbox organization (docs/merchant-api.md): its labels are marked SANDBOX. */
  sandbox: boolean;
}

declare module 'koa' {
  interface DefaultState {
    organization: Organization;
  }
}

/**
 * API-key authentication: confines the request to the key's organization. Not cached,
 * so a rotated key stops working the moment the rotation commits.
 */
export function authenticateOrganization(sql: Sql): Middleware {
  return async (ctx, next) => {
    const key = bearerToken(ctx);
    if (!key) throw problem.unauthorized();
    const [organization] = await sql<Organization[]>`
      select o.id, o.name, o.sandbox
        from api_keys k join organizations o on o.id = k.organization_id
       where k.key_hash = ${hashSecret(key)} and k.revoked_at is null`;
    if (!organization) throw problem.unauthorized();
    ctx.state.organization = organization;
    await next();
  };
}
