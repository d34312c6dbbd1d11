import {
  EventListQuerySchema,
  type EventList,
  type Redelivery,
  type WebhookEventType,
} from '@locker/shared';
import type { Middleware } from 'koa';
import { isUuid } from '../domain/ids';
import type { Services } from '../domain/services';
import { ProblemError, problem } from '../http/problem';
import { validate } from '../http/validate';
import { queueDeliveries } from '../webhooks/events';

/**
 * GET /events: the organization's events, oldest first, after the one named by `after`.
 * Numbered in commit order, so a receiver that pages with the last id it processed never
 * misses one, whatever it missed by webhook.
 */
export function listEvents({ sql }: Services): Middleware {
  return async (ctx) => {
    const query = validate(EventListQuerySchema, { ...ctx.query }, 'validation_failed');
    const orgId = ctx.state.organization.id;
    let afterSeq = '0';
    if (query.after) {
      const [cursor] = await sql<{ seq: string }[]>`
        select seq from events where id = ${query.after} and organization_id = ${orgId}`;
      if (!cursor) {
        throw new ProblemError('validation_failed', 'Invalid field(s): after.', [
          { field: 'after', code: 'not_found', message: 'no event of yours has this id' },
        ]);
      }
      afterSeq = cursor.seq;
    }
    const rows = await sql<{ id: string; body: string }[]>`
      select id, body from events
       where organization_id = ${orgId} and seq > ${afterSeq}
         ${query.type ? sql`and type = ${query.type}` : sql``}
       order by seq
       limit ${query.limit + 1}`;
    const page = rows.slice(0, query.limit);
    const body: EventList = {
      data: page.map((row) => JSON.parse(row.body) as EventList['data'][number]),
      has_more: rows.length > query.limit,
      next_after: page.at(-1)?.id ?? query.after ?? null,
    };
    ctx.body = body;
  };
}

/** POST /events/{id}/redeliver: queues the event again to every enabled endpoint. */
export function redeliverEvent({ sql, nudge }: Services): Middleware {
  return async (ctx) => {
    const { id } = ctx.params as { id?: string };
    const orgId = ctx.state.organization.id;
    const [event] =
      id && isUuid(id)
        ? await sql<{ id: string; type: WebhookEventType }[]>`
            select id, type from events where id = ${id} and organization_id = ${orgId}`
        : [];
    if (!event) throw problem.notFound('No such event.');
    const endpointIds = await queueDeliveries(sql, orgId, event.id, event.type);
    nudge.webhooks();
    const body: Redelivery = { event_id: event.id, endpoint_ids: endpointIds };
    ctx.status = 202;
    ctx.body = body;
  };
}
