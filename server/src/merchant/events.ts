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
  /** Below the oldest running transaction's id: nothing ordered before it can still come. */
  settled: boolean;
}

// A page that ends at events whose earlier neighbours are still being written waits for
// them this long at most (they are transactions of a few milliseconds), then answers
// what is settled; the rest comes with the next page.
const SETTLE_MS = 1000;
const SETTLE_POLL_MS = 5;

/**
 * GET /events: the organization's events, oldest first, after the one named by `after`.
 * Ordered by writing transaction and number (migration 009), and only up to the oldest
 * transaction still running, so a receiver that pages with the last id it processed
 * never misses one that commits late, whatever it missed by webhook.
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
    const read = () => sql<Row[]>`
      select id, body, xid::text, seq::text,
             xid < pg_snapshot_xmin(pg_current_snapshot()) as settled
        from events
       where organization_id = ${orgId} and (xid, seq) > (${after.xid}::xid8, ${after.seq}::bigint)
         ${query.type ? sql`and type = ${query.type}` : sql``}
       order by xid, seq
       limit ${query.limit + 1}`;
    let rows = await read();
    // Events committed behind ones still being written: wait for those, briefly.
    const waitingFor = rows.filter((r) => !r.settled).at(-1)?.xid;
    const deadline = Date.now() + SETTLE_MS;
    while (
      waitingFor !== undefined &&
      rows.some((r) => !r.settled && BigInt(r.xid) <= BigInt(waitingFor)) &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
      rows = await read();
    }
    const unsettled = rows.findIndex((r) => !r.settled);
    const settled = unsettled === -1 ? rows : rows.slice(0, unsettled);
    const page = settled.slice(0, query.limit);
    const body: EventList = {
      data: page.map((row) => JSON.parse(row.body) as EventList['data'][number]),
      // Unsettled events are not "more" yet: they come with a later call.
      has_more: settled.length > query.limit,
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
