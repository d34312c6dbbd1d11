import {
  ReturnConfirmRequestSchema,
  ReturnRequestSchema,
  type OkResponse,
  type ReturnResponse,
  type Size,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { TransactionSql } from '../db/connect';
import { eventTime } from '../domain/occurredAt';
import type { Services } from '../domain/services';
import { readJson } from '../http/body';
import { problem } from '../http/problem';
import { CabinetFullProblem } from './cabinetFull';
import { validate } from '../http/validate';
import { queueWebhookEvent } from '../webhooks/events';
import { stationOf } from './auth';
import { lockStation, smallestFreeDoor } from './doorAssignment';

interface ReturnCandidate {
  shipment_id: string;
  tracking_number: string;
  parcel_size: Size;
  status: string;
  within_window: boolean;
  return_id: string | null;
  return_status: string | null;
  held_position: number | null;
}

type ReturnOutcome =
  | { kind: 'held'; door: number; trackingNumber: string; returnId: string }
  | { kind: 'not_found' }
  | { kind: 'cabinet_full'; size: Size };

/** An open return to resume, or a new one when the parcel is eligible. */
async function openReturn(tx: TransactionSql, stationId: string, c: ReturnCandidate) {
  if (c.return_id) return c.return_status === 'open' ? c.return_id : undefined;
  if (c.status !== 'collected' || !c.within_window) return undefined;
  const [created] = await tx<{ id: string }[]>`
    insert into returns (shipment_id, station_id) values (${c.shipment_id}, ${stationId})
    returning id`;
  await tx`
    update shipments set status = 'return_started', status_at = now(), updated_at = now()
     where id = ${c.shipment_id}`;
  return created?.id;
}

async function startReturn(
  tx: TransactionSql,
  stationId: string,
  trackingNumber: string,
): Promise<ReturnOutcome> {
  await lockStation(tx, stationId);
  const [candidate] = await tx<ReturnCandidate[]>`
    select sh.id as shipment_id, sh.tracking_number, sh.parcel_size, sh.status,
           sh.collected_at > now() - make_interval(days => org.return_window_days) as within_window,
           r.id as return_id, r.status as return_status, d.position as held_position
      from shipments sh
      join organizations org on org.id = sh.organization_id
      left join returns r on r.shipment_id = sh.id
      left join door_occupancy o on o.return_id = r.id and o.kind = 'return_hold'
      left join doors d on d.id = o.door_id
     where sh.tracking_number = ${trackingNumber} and sh.destination_station_id = ${stationId}`;
  if (!candidate) return { kind: 'not_found' };
  const returnId = await openReturn(tx, stationId, candidate);
  if (!returnId) return { kind: 'not_found' };
  const held = { trackingNumber: candidate.tracking_number, returnId };
  if (candidate.held_position !== null)
    return { kind: 'held', door: candidate.held_position, ...held };

  const door = await smallestFreeDoor(tx, stationId, candidate.parcel_size);
  // The return stays open without a door, so a retry resumes it with the same returnId.
  if (!door) return { kind: 'cabinet_full', size: candidate.parcel_size };
  await tx`
    insert into door_occupancy (door_id, station_id, kind, shipment_id, return_id)
    values (${door.id}, ${stationId}, 'return_hold', ${candidate.shipment_id}, ${returnId})`;
  return { kind: 'held', door: door.position, ...held };
}

/**
 * Assigns and holds a door for a customer's return; records nothing of the return itself.
 * One open return per parcel: retries (after `cabinet_full` too) resume it.
 */
export function startReturnRoute({ sql, cabinetChanged }: Services): Middleware {
  return async (ctx) => {
    const { trackingNumber } = validate(ReturnRequestSchema, await readJson(ctx));
    const station = stationOf(ctx.state.terminal);
    const outcome = await sql.begin((tx) => startReturn(tx, station.id, trackingNumber));
    switch (outcome.kind) {
      case 'not_found':
        throw problem.notFound(
          'No parcel eligible for return has that tracking number at this station.',
        );
      case 'cabinet_full':
        throw new CabinetFullProblem(outcome.size);
      case 'held': {
        await cabinetChanged(station.id);
        const body: ReturnResponse = {
          ok: true,
          door: outcome.door,
          trackingNumber: outcome.trackingNumber,
          returnId: outcome.returnId,
        };
        ctx.body = body;
        return;
      }
      default: {
        const unreachable: never = outcome;
        throw new Error(`unhandled return outcome ${JSON.stringify(unreachable)}`);
      }
    }
  };
}

/**
 * `deposited: true` records the return: the held door now holds a `return` parcel for the
 * merchant's courier. `false` releases the door and leaves the return open for a retry.
 */
export function confirmReturnRoute({ sql, cabinetChanged, nudge }: Services): Middleware {
  return async (ctx) => {
    const request = validate(ReturnConfirmRequestSchema, await readJson(ctx));
    const at = eventTime(request.occurred_at);
    const station = stationOf(ctx.state.terminal);
    const found = await sql.begin(async (tx) => {
      const [held] = await tx<{ id: string; shipment_id: string; door_id: string }[]>`
        select r.id, r.shipment_id, o.door_id
          from returns r
          join door_occupancy o on o.return_id = r.id and o.kind = 'return_hold'
         where r.id = ${request.returnId} and r.station_id = ${station.id} and r.status = 'open'
         for update of r`;
      if (!held) return false;
      if (!request.deposited) {
        await tx`delete from door_occupancy where door_id = ${held.door_id}`;
        return true;
      }
      await tx`update returns set status = 'deposited', deposited_at = ${at} where id = ${held.id}`;
      await tx`update door_occupancy set kind = 'return', since = ${at} where door_id = ${held.door_id}`;
      await tx`
        update shipments set status = 'returned_to_locker', status_at = ${at}, updated_at = now()
         where id = ${held.shipment_id}`;
      // The spec's "merchant notified".
      await queueWebhookEvent(tx, held.shipment_id, 'return.deposited');
      return true;
    });
    if (!found) throw problem.notFound('No return awaiting deposit has that id at this station.');
    await cabinetChanged(station.id);
    if (request.deposited) nudge.webhooks();
    const body: OkResponse = { ok: true };
    ctx.body = body;
  };
}
