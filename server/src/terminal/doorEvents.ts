import {
  CabinetEventRequestSchema,
  DoorEventRequestSchema,
  type CabinetEventRequest,
  type DoorEventRequest,
  type OkResponse,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { TransactionSql } from '../db/connect';
import type { Services } from '../services';
import { readJson } from '../http/body';
import { problem } from '../http/problem';
import { validate } from '../http/validate';
import { transaction } from '../db/transaction';
import { stationOf } from './auth';
import { lockStation } from './doorAssignment';
import { reportedTime } from './reportedTime';
import { recordDoorStates } from '../link/doorStates';

// What a kiosk's door supervision saw (docs/terminal-extensions.md): each event recorded
// once per kiosk event id (`door_events`), an operations alert raised with each that needs a
// person. Nothing here changes a parcel: the service's records of what is where stay until
// an operator settles them.

export interface RaisedAlert {
  kind: string;
  terminalId: string;
  stationId: string;
  /** The door it is about: one open alert per kind and door. */
  doorId?: string;
  /** What it is about when no door says it (a board): one open alert per condition. */
  conditionKey?: string;
  message: string;
}

/**
 * The one place these events raise an operations alert: a row in `alerts`, which the
 * alert lifecycle (migration 010) folds into the open alert of the same condition (kind
 * and door, or the condition key given) rather than opening another.
 */
export async function raiseAlert(tx: TransactionSql, alert: RaisedAlert): Promise<void> {
  await tx`
    insert into alerts (kind, terminal_id, station_id, door_id, condition_key, message)
    values (${alert.kind}, ${alert.terminalId}, ${alert.stationId}, ${alert.doorId ?? null},
            ${alert.conditionKey ?? null}, ${alert.message})`;
}

const SENSOR = (itemPresent: boolean | null) =>
  itemPresent === null
    ? 'item sensor not read'
    : itemPresent
      ? 'item sensor: something inside'
      : 'item sensor: empty';

const VISIT: Record<NonNullable<DoorEventRequest['visit']>, string> = {
  pickup: 'a pickup',
  deposit: 'a deposit',
  return: 'a return',
  collect: "a courier's take-out",
};

const UNSETTLED: Record<string, string> = {
  found_open: 'the door was found open at the unlock',
  never_shut: 'the door was never seen shut',
  not_seen_open: 'the door was never seen open',
};

/** The operator's sentence for a door event; null for an event that needs no one. */
export function doorEventMessage(
  position: number,
  event: DoorEventRequest,
  recorded: string | null,
): string | null {
  const parcel = event.trackingNumber ? ` parcel ${event.trackingNumber}` : '';
  const holds = recorded ? `; the service records parcel ${recorded} in it` : '';
  const sensor = SENSOR(event.itemPresent);
  switch (event.kind) {
    case 'found_open':
      return `door ${position} was found open at ${event.visit ? VISIT[event.visit] : 'an unlock'}${parcel ? ` of${parcel}` : ''}; nothing was unlocked (${sensor}${holds})`;
    case 'opened_unseen':
      return event.cause === 'after_fault'
        ? `door ${position}, reported as not opening, opened later with no one at it${parcel ? ` (the visit was for${parcel})` : ''} (${sensor}${holds}): a delayed unlock?`
        : `door ${position} opened with no one using it: forced or propped? (${sensor}${holds})`;
    case 'unsettled':
      return `${event.visit ? VISIT[event.visit] : 'a visit'} of${parcel || ' a parcel'} at door ${position} is not confirmed: ${UNSETTLED[event.cause ?? ''] ?? 'no evidence'} (${sensor}${holds}); settle it`;
    case 'unlock_unknown':
      return null;
    default: {
      const unknown: never = event.kind;
      throw new Error(`unknown door event ${String(unknown)}`);
    }
  }
}

/** A path's door number; anything else names no door. */
function positionOf(raw: string | undefined): number {
  if (!raw || !/^[1-9][0-9]{0,8}$/.test(raw))
    throw problem.notFound('No door has that position at this station.');
  return Number(raw);
}

/**
 * POST /terminal/v1/doors/{door}/events: a door found open at an unlock, opened with no one
 * at it, a pickup the kiosk cannot confirm, an unlock the board fell silent after.
 * Recorded once per `eventId` (a resend answers 200 and records nothing more); each kind
 * but `unlock_unknown` raises an alert. 404 when the station has no such door.
 */
export function doorEvent({ sql, softSql, logger }: Services): Middleware {
  return async (ctx) => {
    const position = positionOf((ctx.params as Record<string, string>).door);
    const event = validate(DoorEventRequestSchema, await readJson(ctx));
    const at = reportedTime(event.occurred_at);
    const terminal = ctx.state.terminal;
    const station = stationOf(terminal);
    const outcome = await transaction(sql, async (tx) => {
      const [door] = await tx<{ id: string; recorded: string | null }[]>`
        select d.id,
               (select sh.tracking_number from door_occupancy o
                  join shipments sh on sh.id = o.shipment_id
                 where o.door_id = d.id limit 1) as recorded
          from doors d where d.station_id = ${station.id} and d.position = ${position}`;
      if (!door) return null;
      const inserted = await tx`
        insert into door_events (terminal_id, station_id, event_id, kind, position, item_present,
                                 visit, cause, tracking_number, shipment_id, occurred_at)
        values (${terminal.id}, ${station.id}, ${event.eventId}, ${event.kind}, ${position},
                ${event.itemPresent}, ${event.visit}, ${event.cause ?? null},
                ${event.trackingNumber ?? null}, ${event.shipmentId ?? null}, ${at})
        on conflict (terminal_id, event_id) do nothing
        returning id`;
      const message = doorEventMessage(position, event, door.recorded);
      if (inserted.length > 0 && message)
        await raiseAlert(tx, {
          kind: `door_${event.kind}`,
          terminalId: terminal.id,
          stationId: station.id,
          doorId: door.id,
          message,
        });
      return { fresh: inserted.length > 0, message };
    });
    if (!outcome) throw problem.notFound('No door has that position at this station.');
    if (outcome.fresh && (event.kind === 'found_open' || event.kind === 'opened_unseen'))
      // The door stood open when the kiosk saw it: its state, as of then, reaches the
      // station page and the operations stream as the live link's door states do (issue
      // 31: these "ride that link"); a state the link reported since is kept.
      await recordDoorStates(
        softSql,
        station,
        [
          {
            position,
            known: true,
            closed: false,
            itemPresent: event.itemPresent,
            // Found open at an unlock: a session was at the door; opened unseen: nobody.
            inSession: event.kind === 'found_open',
          },
        ],
        at,
      );
    if (outcome.fresh)
      logger[outcome.message ? 'warn' : 'info'](
        {
          ...(outcome.message ? { alert: `door_${event.kind}` } : {}),
          station_code: station.code,
          position,
          kind: event.kind,
          cause: event.cause,
          item_present: event.itemPresent,
        },
        outcome.message ?? 'door event',
      );
    const body: OkResponse = { ok: true };
    ctx.body = body;
  };
}

function cabinetEventMessage(event: CabinetEventRequest): string {
  const doors = event.positions.length ? ` (doors ${event.positions.join(', ')})` : '';
  switch (event.kind) {
    case 'suspect_polarity':
      return `board ${event.board}${doors}: every door reads open at once; the hook polarity is most likely wrong. The kiosk opens nothing on it and its doors are out of service until a technician checks the cabinet file's hookBitMeansClosed`;
    case 'board_changed':
      return `board ${event.board}${doors} is not as commissioned: ${(event.differences ?? []).join('; ') || 'its settings differ'}`;
    default: {
      const unknown: never = event.kind;
      throw new Error(`unknown cabinet event ${String(unknown)}`);
    }
  }
}

/**
 * POST /terminal/v1/cabinet/events: a lock board whose polarity is suspect (its doors are
 * taken out of service: nothing is assigned to them until an operator puts them back), or
 * one not as commissioned. Recorded once per `eventId`, with an alert.
 */
export function cabinetEvent({ sql, logger, cabinetChanged }: Services): Middleware {
  return async (ctx) => {
    const event = validate(CabinetEventRequestSchema, await readJson(ctx));
    const at = reportedTime(event.occurred_at);
    const terminal = ctx.state.terminal;
    const station = stationOf(terminal);
    const message = cabinetEventMessage(event);
    const fresh = await transaction(sql, async (tx) => {
      const inserted = await tx`
        insert into door_events (terminal_id, station_id, event_id, kind, board, positions,
                                 differences, occurred_at)
        values (${terminal.id}, ${station.id}, ${event.eventId}, ${event.kind}, ${event.board},
                ${event.positions}, ${event.differences ?? null}, ${at})
        on conflict (terminal_id, event_id) do nothing
        returning id`;
      if (inserted.length === 0) return false;
      if (event.kind === 'suspect_polarity' && event.positions.length > 0) {
        await lockStation(tx, station.id); // the lock order: station first (doorAssignment.ts)
        // Why and by whom, for operations (an operator's earlier reason is not overwritten).
        const reason = `board ${event.board}: every door reads open (polarity suspect; reported by the kiosk)`;
        await tx`
          update doors set out_of_service = true,
                           out_of_service_reason = case when out_of_service then out_of_service_reason else ${reason} end,
                           out_of_service_by = case when out_of_service then out_of_service_by else 'terminal' end
           where station_id = ${station.id} and position = any(${event.positions}::int[])`;
      }
      await raiseAlert(tx, {
        kind: event.kind,
        terminalId: terminal.id,
        stationId: station.id,
        conditionKey: `${event.kind}:${terminal.id}:board ${event.board}`,
        message,
      });
      return true;
    });
    if (fresh) {
      logger.warn({ alert: event.kind, station_code: station.code, board: event.board }, message);
      if (event.kind === 'suspect_polarity') await cabinetChanged(station.id);
    }
    const body: OkResponse = { ok: true };
    ctx.body = body;
  };
}
