import type { WebhookEventType } from '@locker/shared';
import type { Sql, TransactionSql } from '../db/connect';
import { queueSms } from '../sms/channel';
import { storageReminder, type ParcelRecipient } from '../sms/messages';
import { queueWebhookEvent } from '../webhooks/events';

interface Due extends ParcelRecipient {
  id: string;
  hours_left: number;
  /** The extension the parcel may still take (its page grants it), and the support line (issue 27). */
  extension_hours: number | null;
  support_phone: string;
}

type Notice = 'free_storage_ending' | 'expiring' | 'expired';

const BATCH = 100;

/**
 * Which deliveries awaiting pickup a notice is due for, as of now: reminders inside their
 * window before the deadline (a reminder whose deadline passed unsent is not sent late),
 * the expiry once the maximum storage time is over.
 */
function dueCondition(tx: TransactionSql, notice: Notice) {
  switch (notice) {
    case 'free_storage_ending':
      return tx`sh.free_storage_reminded_at is null and s.free_storage_reminder_hours is not null
        and now() >= sh.deposited_at + make_interval(hours => s.free_storage_hours + sh.storage_extended_hours - s.free_storage_reminder_hours)
        and now() < sh.deposited_at + make_interval(hours => s.free_storage_hours + sh.storage_extended_hours)`;
    case 'expiring':
      return tx`sh.expiry_reminded_at is null and s.expiry_reminder_hours is not null
        and now() >= sh.deposited_at + make_interval(hours => s.max_storage_hours + sh.storage_extended_hours - s.expiry_reminder_hours)
        and now() < sh.deposited_at + make_interval(hours => s.max_storage_hours + sh.storage_extended_hours)`;
    case 'expired':
      return tx`now() >= sh.deposited_at + make_interval(hours => s.max_storage_hours + sh.storage_extended_hours)`;
    default: {
      const unknown: never = notice;
      throw new Error(`unknown notice ${String(unknown)}`);
    }
  }
}

/**
 * The least time after its deposit at which a parcel can be due for `notice` at any
 * station (an extension only moves it later); null when no station sends that notice.
 * Parcels deposited since are not read: the sweep walks the awaiting parcels' index from
 * the oldest and stops there, instead of joining every parcel awaiting pickup in the
 * network to its station three times every 15 s (≈0.3 s of PostgreSQL each with 336,000
 * awaiting, in the peak-hour benchmark).
 */
function youngestDue(tx: TransactionSql, notice: Notice) {
  switch (notice) {
    case 'free_storage_ending':
      return tx`select min(free_storage_hours - free_storage_reminder_hours) from stations`;
    case 'expiring':
      return tx`select min(max_storage_hours - expiry_reminder_hours) from stations`;
    case 'expired':
      return tx`select min(max_storage_hours) from stations`;
    default: {
      const unknown: never = notice;
      throw new Error(`unknown notice ${String(unknown)}`);
    }
  }
}

const deadline = (tx: TransactionSql, notice: Notice) =>
  notice === 'free_storage_ending'
    ? tx`sh.deposited_at + make_interval(hours => s.free_storage_hours + sh.storage_extended_hours)`
    : tx`sh.deposited_at + make_interval(hours => s.max_storage_hours + sh.storage_extended_hours)`;

const MARK: Record<Notice, string> = {
  free_storage_ending: 'free_storage_reminded_at',
  expiring: 'expiry_reminded_at',
  expired: 'expired_at',
};

const EVENT: Record<Notice, WebhookEventType> = {
  free_storage_ending: 'shipment.free_storage_ending',
  expiring: 'shipment.expiring',
  expired: 'shipment.expired',
};

async function sendDue(sql: Sql, notice: Notice, shipmentId?: string): Promise<number> {
  return sql.begin(async (tx) => {
    const due = await tx<Due[]>`
      select sh.id, sh.tracking_number, sh.recipient_name, sh.recipient_phone,
             sh.recipient_language, s.name as station_name,
             greatest(1, ceil(extract(epoch from ${deadline(tx, notice)} - now()) / 3600))::int as hours_left,
             case when sh.storage_extended_hours = 0 then s.storage_extension_hours end as extension_hours,
             s.support_phone
        from shipments sh join stations s on s.id = sh.destination_station_id
       where sh.status = 'ready_for_pickup' and sh.expired_at is null
         ${shipmentId ? tx`and sh.id = ${shipmentId}` : tx``}
         and sh.deposited_at <= now() - make_interval(hours => (${youngestDue(tx, notice)}))
         and ${dueCondition(tx, notice)}
       order by sh.deposited_at
       limit ${BATCH}
       for update of sh skip locked`;
    for (const parcel of due) {
      await tx`update shipments set ${tx(MARK[notice])} = now() where id = ${parcel.id}`;
      if (notice !== 'expired')
        await queueSms(
          tx,
          parcel.id,
          storageReminder(
            parcel,
            notice,
            parcel.hours_left,
            parcel.extension_hours !== null
              ? { hours: parcel.extension_hours, phone: parcel.support_phone || null }
              : undefined,
          ),
        );
      await queueWebhookEvent(tx, parcel.id, EVENT[notice]);
    }
    return due.length;
  });
}

/**
 * Reminds recipients before free storage ends and before their parcel expires, and tells
 * merchants when a parcel expired; each notice once per parcel, safe with several
 * instances. `shipmentId` limits it to one parcel (the sandbox). Answers how many went.
 */
export async function sendStorageNotices(sql: Sql, shipmentId?: string): Promise<number> {
  let sent = 0;
  for (const notice of ['free_storage_ending', 'expiring', 'expired'] as const) {
    sent += await sendDue(sql, notice, shipmentId);
  }
  return sent;
}
