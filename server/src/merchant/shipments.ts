import {
  CreateShipmentRequestSchema,
  ShipmentListQuerySchema,
  type ShipmentList,
  type CreateShipmentRequest,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { Sql, TransactionSql } from '../db/connect';
import type { Services } from '../services';
import { isUuid } from '../domain/ids';
import { registerShipment } from '../shipments/register';
import { registerReservingShipment } from '../capacity/reserve';
import { readJson } from '../http/body';
import { ProblemError, problem } from '../http/problem';
import { validate } from '../http/validate';
import { decodeCursor, encodeCursor } from './cursor';
import { idempotently, requestHash, type StoredAnswer } from './idempotency';
import {
  presentShipment,
  shipmentColumns,
  shipmentView,
  shipmentsWithStations,
  type ShipmentView,
} from '../shipments/view';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Registers one shipment, in the caller's transaction or (one statement) on its own; 422
 * for a station that does not exist.
 */
export async function create(
  tx: Sql | TransactionSql,
  organizationId: string,
  input: CreateShipmentRequest,
): Promise<StoredAnswer> {
  const fields = {
    destinationStationId: input.destination_station_id,
    parcelSize: input.parcel_size,
    recipientName: input.recipient_name,
    recipientPhone: input.recipient_phone,
    recipientLanguage: input.recipient_language,
    merchantOrderReference: input.merchant_order_reference,
    accessibleDoor: input.accessible_door ?? false,
  };
  // Issue 27: a booking that asks holds a door (or is refused with 409 station_full).
  const shipment = input.reserve_door
    ? await registerReservingShipment(tx, organizationId, {
        ...fields,
        accessibleDoor: fields.accessibleDoor,
      })
    : await registerShipment(tx, organizationId, fields);
  if (!shipment) {
    throw new ProblemError('validation_failed', 'Invalid field(s): destination_station_id.', [
      { field: 'destination_station_id', code: 'not_found', message: 'no station has this id' },
    ]);
  }
  return { status: 201, body: presentShipment(shipment) };
}

/** POST /shipments: 201 with Location; an Idempotency-Key replays the first answer for 24 h. */
export function createShipment({ sql }: Services): Middleware {
  return async (ctx) => {
    const sent = await readJson(ctx);
    const input = validate(CreateShipmentRequestSchema, sent, 'validation_failed');
    const orgId = ctx.state.organization.id;
    const key = ctx.get('Idempotency-Key');
    if (key && !IDEMPOTENCY_KEY.test(key)) {
      throw new ProblemError('validation_failed', 'Invalid header: Idempotency-Key.', [
        {
          field: 'Idempotency-Key',
          code: 'invalid_format',
          message: 'must be 1 to 255 visible ASCII characters',
        },
      ]);
    }
    const answer = key
      ? await idempotently(sql, orgId, key, requestHash(sent), (tx) => create(tx, orgId, input))
      : await create(sql, orgId, input);
    if ('replayed' in answer && answer.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.status = answer.status;
    ctx.set('Location', `/api/v1/shipments/${(answer.body as { id: string }).id}`);
    // The text as first sent, so a replay is the same bytes (the docs promise it).
    ctx.type = 'application/json';
    ctx.body = 'text' in answer ? answer.text : JSON.stringify(answer.body);
  };
}

/** GET /shipments: the organization's shipments, newest first, a cursor per page. */
export function listShipments({ sql }: Services): Middleware {
  return async (ctx) => {
    const query = validate(ShipmentListQuerySchema, { ...ctx.query }, 'validation_failed');
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const rows = await sql<(ShipmentView & { cursor_us: string })[]>`
      select ${shipmentColumns(sql)},
             (extract(epoch from sh.created_at) * 1000000)::bigint as cursor_us
        from ${shipmentsWithStations(sql)}
       where sh.organization_id = ${ctx.state.organization.id}
         ${query.status ? sql`and sh.status = ${query.status}` : sql``}
         ${after ? sql`and (sh.created_at, sh.id) < ('epoch'::timestamptz + ${after.micros}::bigint * interval '1 microsecond', ${after.id}::uuid)` : sql``}
       order by sh.created_at desc, sh.id desc
       limit ${query.limit + 1}`;
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const body: ShipmentList = {
      data: page.map(presentShipment),
      next_cursor: rows.length > query.limit && last ? encodeCursor(last.cursor_us, last.id) : null,
    };
    ctx.body = body;
  };
}

/** Finds one of the organization's shipments; anything else, even malformed ids, is 404. */
async function ownShipment(services: Services, organizationId: string, id: string | undefined) {
  const view = id && isUuid(id) ? await shipmentView(services.sql, id) : undefined;
  if (!view || view.organization_id !== organizationId) throw problem.notFound('No such shipment.');
  return view;
}

export function getShipment(services: Services): Middleware {
  return async (ctx) => {
    const params = ctx.params as { id?: string };
    ctx.body = presentShipment(await ownShipment(services, ctx.state.organization.id, params.id));
  };
}

export { ownShipment };
