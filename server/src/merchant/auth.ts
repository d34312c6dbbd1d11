import type { Middleware } from 'koa';
import type { Sql } from '../db/connect';
import { hashSecret } from '../domain/secrets';
import { bearerToken } from '../http/bearer';
import { problem } from '../http/problem';
import { attemptQueryOf, judgementOf, type JudgedRow } from '../ratelimit/slidingWindow';

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
 * API-key authentication and the per-organization limit of the merchant interface, in one
 * statement (issue 28: they were two round trips before every merchant request).
 *
 * The key confines the request to its organization. Not cached, so a rotated key stops
 * working the moment the rotation commits. A request without a valid key is answered 401
 * and counts toward nothing.
 *
 * The limit is an exact sliding window of 60 s, the terminals' (`ratelimit/slidingWindow.ts`),
 * held in PostgreSQL so it holds across instances. A request is admitted when at most
 * `perMinute` requests of the organization, itself and refused ones included, arrived in
 * the 60 s before it: never more than `perMinute` admitted in any 60 s. `clock` is for
 * tests; by default the database's.
 */
export function authenticateOrganization(
  sql: Sql,
  perMinute: number,
  clock?: () => Date,
): Middleware {
  const window = { limit: perMinute, windowSeconds: 60 };
  return async (ctx, next) => {
    const key = bearerToken(ctx);
    if (!key) throw problem.unauthorized();
    const [row] = await sql<(Organization & JudgedRow)[]>`
      with org as (
        select o.id, o.name, o.sandbox
          from api_keys k join organizations o on o.id = k.organization_id
         where k.key_hash = ${hashSecret(key)} and k.revoked_at is null),
      ${attemptQueryOf(sql, { subject: sql`org.id::text`, from: sql`from org` }, 'merchant', window, clock?.(), { soft: true })}
      select org.id, org.name, org.sandbox, judged.* from org, judged`;
    if (!row) throw problem.unauthorized();
    ctx.state.organization = { id: row.id, name: row.name, sandbox: row.sandbox };
    ctx.set('RateLimit-Policy', `${perMinute};w=60`);
    const judged = judgementOf(row, window);
    if (!judged.allowed) throw problem.rateLimited(judged.retryAfterSeconds);
    await next();
  };
}
