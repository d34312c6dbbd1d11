import type { Middleware } from 'koa';
import type { TransactionSql } from '../db/connect';
import { transaction } from '../db/transaction';
import { isUuid } from '../domain/ids';
import { ProblemError, problem } from '../http/problem';
import type { Services } from '../services';
import { presentShipment, shipmentColumns, type ShipmentView } from '../shipments/view';
import { recordShipmentEvent } from '../webhooks/events';

type CancelOutcome =
  | { kind: 'cancelled'; view: ShipmentView }
  | { kind: 'already'; view: ShipmentView }
  | { kind: 'not_cancellable'; status: string }
  | { kind: 'not_found' };

/**
 * Cancels a booking before its deposit: status `cancelled`, its reserved door released,
 * the `shipment.cancelled` event. The station lock first (the lock order), so a cancel
 * and a courier's deposit of the same parcel are serialized: one wins, the other finds
 * the parcel no longer booked.
 */
export async function cancelBooking(
  tx: TransactionSql,
  organizationId: string,
  shipmentId: string,
): Promise<CancelOutcome> {
  const [locked] = await tx<{ station_id: string }[]>`
    select s.id as station_id, lock_station(s.id)
      from shipments sh join stations s on s.id = sh.destination_station_id
     where sh.id = ${shipmentId} and sh.organization_id = ${organizationId}`;
  if (!locked) return { kind: 'not_found' };
  const [row] = await tx<(ShipmentView & { cancelled: boolean })[]>`
    with cancelled as (
      update shipments sh set status = 'cancelled', status_at = now(), updated_at = now()
        from stations s
       where sh.id = ${shipmentId} and sh.status = 'booked' and s.id = sh.destination_station_id
      returning ${shipmentColumns(tx)}),
    released as (
      delete from door_reservations r using cancelled where r.shipment_id = cancelled.id)
    select true as cancelled, * from cancelled
    union all
    select false, ${shipmentColumns(tx)}
      from shipments sh join stations s on s.id = sh.destination_station_id
     where sh.id = ${shipmentId} and not exists (select 1 from cancelled)`;
  if (!row) return { kind: 'not_found' };
  const { cancelled, ...view } = row;
  if (cancelled) {
    await recordShipmentEvent(tx, view, 'shipment.cancelled');
    return { kind: 'cancelled', view };
  }
  if (view.status === 'cancelled') return { kind: 'already', view };
  return { kind: 'not_cancellable', status: view.status };
}

/**
 * POST /api/v1/shipments/{id}/cancel: 200 with the cancelled shipment (a repeat answers
 * it again, with no second event); 409 `not_cancellable` once deposited; another
 * organization's shipment is 404.
 */
export function cancelShipment({ sql, nudge }: Services): Middleware {
  return async (ctx) => {
    const { id } = ctx.params as { id?: string };
    if (!id || !isUuid(id)) throw problem.notFound('No such shipment.');
    const outcome = await transaction(sql, (tx) =>
      cancelBooking(tx, ctx.state.organization.id, id),
    );
    switch (outcome.kind) {
      case 'not_found':
        throw problem.notFound('No such shipment.');
      case 'not_cancellable':
        throw new ProblemError(
          'not_cancellable',
          `The shipment is ${outcome.status}: only a booking not yet deposited can be cancelled.`,
        );
      case 'cancelled':
        nudge.webhooks();
        ctx.body = presentShipment(outcome.view);
        return;
      case 'already':
        ctx.body = presentShipment(outcome.view);
        return;
      default: {
        const unreachable: never = outcome;
        throw new Error(`unhandled cancel outcome ${JSON.stringify(unreachable)}`);
      }
    }
  };
}
