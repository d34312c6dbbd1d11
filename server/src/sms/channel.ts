import type { TransactionSql } from '../db/connect';
import { enqueue, type ChannelPolicy } from '../outbox/outbox';
import { redactCodes } from './texts';
import type { SmsMessage, SmsTransport } from './transports';

/**
 * As stored in the outbox. `carriesCode` marks a pickup-code SMS, so that undoing a
 * deposit knows whether a code may already be on the recipient's phone.
 */
export interface QueuedSms extends SmsMessage {
  carriesCode: boolean;
}

/** Why a sandbox's SMS is kept but never sent. */
export const SANDBOX_SMS = 'sandbox: never sent';

/** Queued in the caller's transaction: the SMS exists exactly when what caused it does. */
export async function queueSms(
  tx: TransactionSql,
  shipmentId: string,
  sms: QueuedSms,
): Promise<void> {
  // A sandbox's recipients are made up, or worse, real people: nothing is ever sent.
  const [sandbox] = await tx`
    select 1 from shipments sh join organizations o on o.id = sh.organization_id
     where sh.id = ${shipmentId} and o.sandbox`;
  await enqueue(tx, 'sms', sms, {
    shipmentId,
    ...(sandbox ? { setAside: SANDBOX_SMS } : {}),
  });
}

/**
 * SMS delivery through the configured transport. Once sent, the stored text loses its
 * pickup code: the plaintext code exists only on its way out.
 */
export function smsChannel(transport: SmsTransport): ChannelPolicy<SmsMessage> {
  return {
    channel: 'sms',
    deliver: (message) => transport.send(message.payload),
    afterDelivery: (sms) => ({ ...sms, text: redactCodes(sms.text) }),
    // A pickup code is useful for days; keep trying for about two days.
    maxAttempts: 100,
    maxBackoffSeconds: 1800,
  };
}
