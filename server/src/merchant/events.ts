import {
  EventListQuerySchema,
  type EventList,
  type Redelivery,
  type WebhookEventType,
} from '@locker/shared';
import type { Middleware } from 'koa';
import { isUuid } from '../domain/ids';
import type { Services } from '../services';
import { ProblemError, problem } from '../http/problem';
import { validate } from '../http/validate';
import { queueDeliveries } from '../webhooks/events';

interface Position {
  xid: string;
  seq: string;
}

interface Row extends Position {
  id: string;
  body: string;
}

/**
 * GET /events: the organization's events, oldest first, after the one named by `after`.
 * Ordered by writing transaction and number (migration 009), and only up to the oldest
 * transaction still running, so a receiver that pages with the last id it processed
 * never misses one that commits late, whatever it missed by webhook. One read: events
 * behind a write still running are not waited for (that write may be anybody's and stay
 * open for long); they come with a later call.
 */
export function listEvents({ sql }: Services): Middleware {
  return async (ctx) => {
    const query = validate(EventListQuerySchema, { ...ctx.query }, 'validation_failed');
    const orgId = ctx.state.organization.id;
    let after: Position = { xid: '0', seq: '0' };
    if (query.after) {
      const [cursor] = await sql<Position[]>`
        select xid::text, seq::text from events
         where id = ${query.after} and organization_id = ${orgId}`;
      if (!cursor) {
        throw new ProblemError('validation_failed', 'Invalid field(s): after.', [
          { field: 'after', code: 'not_found', message: 'no event of yours has this id' },
        ]);
      }
      after = cursor;
    }
    // Settled: below the oldest running transaction's id, so every event ordered before
    // it has committed or never will.
    const rows = await sql<Row[]>`
      select id, body, xid::text, seq::text
        from events
       where organization_id = ${orgId} and (xid, seq) > (${after.xid}::xid8, ${after.seq}::bigint)
         and xid < pg_snapshot_xmin(pg_current_snapshot())
         ${query.type ? sql`and type = ${query.type}` : sql``}
       order by xid, seq
       limit ${query.limit + 1}`;
    const page = rows.slice(0, query.limit);
    const body: EventList = {
      data: page.map((row) => JSON.parse(row.body) as EventList['data'][number]),
      // Unsettled events are not "more" yet: they come with a later call.
      has_more: rows.length > query.limit,
      next_after: page.at(-1)?.id ?? query.after ?? null,
    };
    ctx.body = body;
  };
}

/**
 * Redeliveries are capped, so nobody queues deliveries faster than endpoints can take
 * them: each one is up to 10 deliveries (one per endpoint), and a flood of them to
 * endpoints that hang was how one merchant stalled everybody's webhooks.
 */
export const REDELIVERY_LIMITS = {
  /** Redeliveries of one event in 24 hours. */
  perEvent: 5,
  /** Redeliveries of one organization in a minute (sliding, exact). */
  perMinute: 20,
};

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
    const { perEvent, perMinute } = REDELIVERY_LIMITS;
    const endpointIds = await sql.begin(async (tx) => {
      // One organization's redeliveries judged one at a time: the caps hold exactly.
      await tx`select pg_advisory_xact_lock(hashtextextended(${`redeliver ${orgId}`}, 0))`;
      // Seconds until the oldest of the last `cap` in the window slides out, when `cap`
      // are in it; null when there is room.
      const [waits] = await tx<{ event_wait: number | null; minute_wait: number | null }[]>`
        select
          (select ceil(extract(epoch from min(at) + interval '1 day' - now()))::int
             from (select at from webhook_redeliveries
                    where event_id = ${event.id} and at > now() - interval '1 day'
                    order by at desc limit ${perEvent}) recent
           having count(*) >= ${perEvent}) as event_wait,
          (select ceil(extract(epoch from min(at) + interval '1 minute' - now()))::int
             from (select at from webhook_redeliveries
                    where organization_id = ${orgId} and at > now() - interval '1 minute'
                    order by at desc limit ${perMinute}) recent
           having count(*) >= ${perMinute}) as minute_wait`;
      if (waits?.event_wait != null) {
        const wait = Math.max(1, waits.event_wait);
        throw new ProblemError(
          'rate_limited',
          `At most ${perEvent} redeliveries of one event a day: try again in ${wait} s.`,
          undefined,
          { 'Retry-After': String(wait) },
        );
      }
      if (waits?.minute_wait != null) {
        const wait = Math.max(1, waits.minute_wait);
        throw new ProblemError(
          'rate_limited',
          `At most ${perMinute} redeliveries a minute: try again in ${wait} s.`,
          undefined,
          { 'Retry-After': String(wait) },
        );
      }
      await tx`
        with gone as (
          delete from webhook_redeliveries
           where organization_id = ${orgId} and at < now() - interval '1 day')
        insert into webhook_redeliveries (organization_id, event_id)
        values (${orgId}, ${event.id})`;
      return queueDeliveries(tx, orgId, event.id, event.type);
    });
    nudge.webhooks();
    const body: Redelivery = { event_id: event.id, endpoint_ids: endpointIds };
    ctx.status = 202;
    ctx.body = body;
  };
}
