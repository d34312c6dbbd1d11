import { CreateWebhookEndpointRequestSchema, RotateSecretRequestSchema } from '@locker/shared';
import type { Middleware } from 'koa';
import { isUuid } from '../domain/ids';
import type { Services } from '../services';
import { NO_BODY, readJson } from '../http/body';
import { ProblemError, problem } from '../http/problem';
import { validate } from '../http/validate';
import {
  createEndpoint,
  deleteEndpoint,
  endpointUrlProblem,
  enableEndpoint,
  listEndpoints,
  rotateEndpointSecret,
} from '../webhooks/endpoints';

/** More would mostly mean a loop creating them by mistake. */
export const MAX_ENDPOINTS = 10;

function endpointId(ctx: object): string {
  const { id } = (ctx as { params: { id?: string } }).params;
  if (!id || !isUuid(id)) throw problem.notFound('No such webhook endpoint.');
  return id;
}

/** POST /webhooks: a new endpoint; its secret is in this answer and nowhere else. */
export function createWebhookEndpoint({ sql, config }: Services): Middleware {
  return async (ctx) => {
    const input = validate(
      CreateWebhookEndpointRequestSchema,
      await readJson(ctx),
      'validation_failed',
    );
    // The schema took the URL's form; its host must be public too (address.ts).
    const refused = await endpointUrlProblem(input.url, {
      allowPrivate: config.webhookAllowPrivate,
    });
    if (refused) {
      throw new ProblemError('validation_failed', 'Invalid field(s): url.', [
        { field: 'url', code: 'refused_address', message: refused },
      ]);
    }
    const orgId = ctx.state.organization.id;
    const existing = await listEndpoints(sql, orgId);
    if (existing.length >= MAX_ENDPOINTS) {
      throw new ProblemError('validation_failed', 'Invalid field(s): url.', [
        {
          field: 'url',
          code: 'too_many',
          message: `an organization has at most ${MAX_ENDPOINTS} endpoints; delete one first`,
        },
      ]);
    }
    const created = await createEndpoint(sql, orgId, input, config.webhookSecretKeys);
    ctx.status = 201;
    ctx.set('Location', `/api/v1/webhooks/${created.id}`);
    ctx.body = created;
  };
}

export function listWebhookEndpoints({ sql }: Services): Middleware {
  return async (ctx) => {
    ctx.body = { data: await listEndpoints(sql, ctx.state.organization.id) };
  };
}

/** POST /webhooks/{id}/rotate-secret: the old secret signs beside the new for a while. */
export function rotateWebhookSecret({ sql, config }: Services): Middleware {
  return async (ctx) => {
    const id = endpointId(ctx);
    const sent = await readJson(ctx);
    const input = validate(
      RotateSecretRequestSchema,
      sent === NO_BODY ? {} : sent,
      'validation_failed',
    );
    const rotated = await rotateEndpointSecret(
      sql,
      ctx.state.organization.id,
      id,
      input.rollover_hours,
      config.webhookSecretKeys,
    );
    if (!rotated) throw problem.notFound('No such webhook endpoint.');
    ctx.body = rotated;
  };
}

export function enableWebhookEndpoint({ sql }: Services): Middleware {
  return async (ctx) => {
    const enabled = await enableEndpoint(sql, ctx.state.organization.id, endpointId(ctx));
    if (!enabled) throw problem.notFound('No such webhook endpoint.');
    ctx.body = enabled;
  };
}

export function deleteWebhookEndpoint({ sql }: Services): Middleware {
  return async (ctx) => {
    if (!(await deleteEndpoint(sql, ctx.state.organization.id, endpointId(ctx))))
      throw problem.notFound('No such webhook endpoint.');
    ctx.status = 204;
  };
}
