import type { SandboxAction } from '@locker/shared';
import type { TransactionSql } from '../db/connect';
import { undoDeposit } from '../terminal/depositUndo';
import type { Services } from '../services';
import { ProblemError } from '../http/problem';
import { sendStorageNotices } from '../notices/storage';
import type { TerminalStation } from '../terminal/auth';
import { transaction } from '../db/transaction';
import { placeParcel } from '../terminal/deposit';
import { lockStation } from '../terminal/doorAssignment';
import { recordPickupOutcome } from '../terminal/pickup';
import { takeOutForCourier } from '../terminal/returnCollection';
import { recordReturnOutcome, startReturn } from '../terminal/returns';

export interface SandboxParcel {
  id: string;
  tracking_number: string;
  status: string;
  station: TerminalStation & {
    maxStorageHours: number;
    freeReminderHours: number | null;
    expiryReminderHours: number | null;
  };
}

function refused(parcel: SandboxParcel, action: SandboxAction, why: string): ProblemError {
  return new ProblemError('validation_failed', 'Invalid field(s): action.', [
    {
      field: 'action',
      code: 'not_allowed',
      message: `a ${parcel.status} shipment cannot ${action.replaceAll('_', ' ')}: ${why}`,
    },
  ]);
}

/** Moves the deposit back so that the storage sweep finds `hoursAgo` passed, then runs it. */
async function ageAndSweep(services: Services, parcel: SandboxParcel, hoursAgo: number) {
  await services.sql`
    update shipments set deposited_at = now() - make_interval(secs => ${hoursAgo * 3600 + 1})
     where id = ${parcel.id} and status = 'ready_for_pickup'`;
  return sendStorageNotices(services.sql, parcel.id);
}

/**
 * One step of a sandbox shipment's life, through the very functions the terminal
 * interface and the storage sweep use: same rules, same events, same webhooks.
 * Throws a 422 naming why when the shipment's state does not allow the step.
 */
export async function advance(
  services: Services,
  parcel: SandboxParcel,
  action: SandboxAction,
): Promise<void> {
  const { sql } = services;
  const { station } = parcel;
  const at = new Date();
  // Run again as a deadlock victim or a lost race, as the kiosk's own paths are.
  const inTx = <T>(work: (tx: TransactionSql) => Promise<T>) => transaction(sql, work);
  const awaiting = parcel.status === 'ready_for_pickup';
  switch (action) {
    case 'deposit': {
      const outcome = await inTx((tx) =>
        placeParcel(tx, services, station, null, parcel.tracking_number, at),
      );
      if (outcome.kind === 'cabinet_full') throw refused(parcel, action, 'no free door fits');
      if (outcome.kind !== 'deposited') throw refused(parcel, action, 'it is not booked');
      break;
    }
    case 'collect':
      if (!(await inTx((tx) => recordPickupOutcome(tx, station, parcel.id, true, at))))
        throw refused(parcel, action, 'it is not awaiting pickup');
      break;
    case 'cancel_deposit': {
      const undone = await inTx(async (tx) => {
        await lockStation(tx, station.id);
        const freed = await tx`
          delete from door_occupancy o using shipments sh
           where o.shipment_id = sh.id and sh.id = ${parcel.id} and o.kind = 'delivery'
             and sh.status = 'ready_for_pickup'
          returning o.shipment_id`;
        if (freed.length === 0) return false;
        await undoDeposit(tx, parcel.id, { at, reason: 'sandbox: deposit cancelled' });
        return true;
      });
      if (!undone) throw refused(parcel, action, 'it is not in a door');
      break;
    }
    case 'remind_free_storage_end':
    case 'remind_expiry': {
      const lead =
        action === 'remind_free_storage_end'
          ? station.freeReminderHours
          : station.expiryReminderHours;
      const window =
        action === 'remind_free_storage_end' ? station.freeStorageHours : station.maxStorageHours;
      if (!awaiting || lead === null) throw refused(parcel, action, 'no such reminder is due');
      if ((await ageAndSweep(services, parcel, window - lead)) === 0)
        throw refused(parcel, action, 'it was already sent');
      break;
    }
    case 'expire':
      if (!awaiting || (await ageAndSweep(services, parcel, station.maxStorageHours)) === 0)
        throw refused(parcel, action, 'it is not awaiting pickup, or has expired already');
      break;
    case 'start_return': {
      const outcome = await inTx((tx) => startReturn(tx, station.id, parcel.tracking_number));
      if (outcome.kind === 'cabinet_full') throw refused(parcel, action, 'no free door fits');
      if (outcome.kind !== 'held')
        throw refused(parcel, action, 'only a collected parcel inside its return window can');
      break;
    }
    case 'deposit_return': {
      const [open] = await sql<{ id: string }[]>`
        select id from returns where shipment_id = ${parcel.id} and status = 'open'`;
      if (!open || !(await inTx((tx) => recordReturnOutcome(tx, station.id, open.id, true, at))))
        throw refused(parcel, action, 'no return holds a door for it');
      break;
    }
    case 'courier_collect':
      if (!(await inTx((tx) => takeOutForCourier(tx, station.id, parcel.tracking_number, at))))
        throw refused(parcel, action, 'only a deposited return or an expired parcel can');
      break;
    default: {
      const unknown: never = action;
      throw new Error(`unknown sandbox action ${String(unknown)}`);
    }
  }
  // Announced: its deposits, collections and returns are the terminal's (underStationLock).
  await services.cabinetChanged(station.id, null, { announce: true });
  services.nudge.sms();
  services.nudge.webhooks();
  if (action === 'deposit') services.nudge.verifiers();
}
