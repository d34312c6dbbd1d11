import { DepositUndoRequestSchema, type OkResponse } from '@locker/shared';
import type { Middleware } from 'koa';
import { requireCourier } from '../domain/couriers';
import { undoDeposit } from '../domain/depositUndo';
import { eventTime, noteClockSkew } from '../domain/occurredAt';
import type { Services } from '../domain/services';
import { readJson } from '../http/body';
import { problem } from '../http/problem';
import { validate } from '../http/validate';
import { transaction } from '../db/transaction';
import { stationOf } from './auth';
import { lockStation } from './doorAssignment';

/**
 * POST /terminal/v1/deposit/undo (extension): the courier shut the door of a parcel they
 * had just deposited, and the sensor saw it empty. Only that courier's delivery, still
 * awaiting its recipient in a door of this station, can be undone; a repeat answers 404.
 */
export function depositUndo({ sql, cabinetChanged }: Services): Middleware {
  return async (ctx) => {
    const request = validate(DepositUndoRequestSchema, await readJson(ctx));
    const at = eventTime(request.occurred_at);
    const station = stationOf(ctx.state.terminal);
    const courier = await requireCourier(sql, request.courierNo);
    const found = await transaction(sql, async (tx) => {
      await lockStation(tx, station.id); // the lock order: station first (doorAssignment.ts)
      const [freed] = await tx<{ shipment_id: string }[]>`
        delete from door_occupancy o
         using shipments sh
         where o.shipment_id = sh.id and o.kind = 'delivery' and o.station_id = ${station.id}
           and sh.tracking_number = ${request.trackingNumber}
           and sh.status = 'ready_for_pickup' and sh.deposited_by = ${courier.id}
        returning o.shipment_id`;
      if (!freed) return false;
      await noteClockSkew(tx, ctx.state.log, {
        shipmentId: freed.shipment_id,
        at,
        terminalId: ctx.state.terminal.id,
        stationId: station.id,
      });
      await undoDeposit(tx, freed.shipment_id, { at, reason: 'the courier shut the door empty' });
      return true;
    });
    if (!found)
      throw problem.notFound(
        'This courier has no parcel awaiting pickup with that tracking number here.',
      );
    await cabinetChanged(station.id);
    const body: OkResponse = { ok: true };
    ctx.body = body;
  };
}
