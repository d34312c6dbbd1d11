import type { Sql, TransactionSql } from '../db/connect';
import type { Logger } from '../logger';
import { redactCodes } from './texts';
import type { SmsTransport } from './transports';

export interface QueuedSms {
  shipmentId: string;
  to: string;
  language: string;
  text: string;
}

/** Queued in the caller's transaction: the SMS exists exactly when the deposit does. */
export async function queueSms(tx: TransactionSql, sms: QueuedSms): Promise<void> {
  await tx`
    insert into sms_outbox (shipment_id, to_phone, language, body)
    values (${sms.shipmentId}, ${sms.to}, ${sms.language}, ${sms.text})`;
}

// A claimed message is invisible to other workers for this long; a worker that dies while
// sending leaves it to be sent again (at least once, never lost).
const LEASE_SECONDS = 60;
const BATCH = 20;

function backoffSeconds(attempt: number): number {
  const base = Math.min(5 * 2 ** (attempt - 1), 1800);
  return base / 2 + Math.random() * (base / 2);
}

interface Claimed {
  id: string;
  to_phone: string;
  language: string;
  body: string;
  attempts: number;
}

/** Sends what is due; answers true when a full batch was taken (more may wait). */
export async function deliverDueSms(
  sql: Sql,
  transport: SmsTransport,
  log: Logger,
): Promise<boolean> {
  const claimed = await sql<Claimed[]>`
    update sms_outbox
       set attempts = attempts + 1,
           next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS})
     where id in (
       select id from sms_outbox
        where sent_at is null and next_attempt_at <= now()
        order by id
        limit ${BATCH}
        for update skip locked)
    returning id, to_phone, language, body, attempts`;
  for (const sms of claimed) {
    try {
      await transport.send({ to: sms.to_phone, language: sms.language, text: sms.body });
      await sql`
        update sms_outbox set sent_at = now(), body = ${redactCodes(sms.body)}, last_error = null
         where id = ${sms.id}`;
    } catch (error) {
      const retryIn = backoffSeconds(sms.attempts);
      log.warn({ sms_id: sms.id, attempt: sms.attempts, err: error }, 'SMS not sent; will retry');
      await sql`
        update sms_outbox
           set next_attempt_at = now() + make_interval(secs => ${retryIn}),
               last_error = ${error instanceof Error ? error.message.slice(0, 500) : 'unknown error'}
         where id = ${sms.id}`;
    }
  }
  return claimed.length === BATCH;
}
