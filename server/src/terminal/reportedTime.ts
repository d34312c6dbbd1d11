import type { Sql, TransactionSql } from '../db/connect';
import type { WriteDb } from '../db/transaction';
import { ProblemError } from '../http/problem';
import type { Logger } from '../logger';
import { eventTime } from '../domain/occurredAt';

/**
 * The time to record for an event the terminal reports (`occurred_at`, else now), or the
 * spec's 400 `occurred_at_out_of_range`.
 */
export function reportedTime(occurredAt: string | undefined): Date {
  const time = eventTime(occurredAt);
  if (time.kind === 'out_of_range')
    throw new ProblemError(
      'occurred_at_out_of_range',
      'occurred_at must not be in the future nor more than 7 days in the past.',
    );
  return time.at;
}

/** The terminal that reported an event, for the clock-skew note. */
export interface Reporter {
  log: Logger;
  terminalId: string;
}

// Beyond this, a terminal's clock is wrong rather than a little off: operations hear of it.
const SKEW_ALERT_MS = 5 * 60 * 1000;

export interface ReportedEvent {
  shipmentId: string;
  at: Date;
  terminalId: string;
  stationId: string;
}

/**
 * A reported time earlier than the parcel's previous event means a kiosk clock is off
 * (or a report was queued across a clock change). The event is still recorded at the
 * time reported (the spec keeps `occurred_at` as sent), and tracking lists events in
 * the order they happened to the parcel, so its history never runs backwards; the skew
 * is logged with the terminal, and above 5 minutes raises an operator alert (at most one
 * per terminal an hour). Without `known`, call before recording the event (it reads the
 * parcel's latest): inside the transaction. A kiosk's online deposit, whose transaction
 * is sent in one write, calls it after its commit with `known`.
 */
export async function noteClockSkew(
  tx: Sql | TransactionSql,
  log: Logger,
  event: ReportedEvent,
  /**
   * The time of the parcel's latest event, when the caller read it already (with the
   * statement that locked or changed the parcel): saves a query. Null: it has none.
   */
  known?: { previousAt: Date | null },
): Promise<void> {
  const previousAt = known
    ? known.previousAt
    : ((
        await tx<{ at: Date | null }[]>`
          select max(occurred_at) as at from tracking_events where shipment_id = ${event.shipmentId}`
      )[0]?.at ?? null);
  if (!previousAt || event.at >= previousAt) return;
  const behindMs = previousAt.getTime() - event.at.getTime();
  const fields = {
    clock_skew_ms: behindMs,
    terminal_id: event.terminalId,
    shipment_id: event.shipmentId,
  };
  log.warn(fields, "occurred_at is earlier than the parcel's previous event");
  if (behindMs <= SKEW_ALERT_MS) return;
  const raised = await tx`
    insert into alerts (kind, terminal_id, station_id, message)
    select 'terminal_clock_skew', ${event.terminalId}, ${event.stationId},
           ${`reported a time ${Math.round(behindMs / 1000)} s before the parcel's previous event; check the terminal's clock`}
     where not exists (select 1 from alerts where kind = 'terminal_clock_skew'
                          and terminal_id = ${event.terminalId}
                          and created_at > now() - interval '1 hour')
    returning id`;
  // Operations' monitoring matches `alert: "terminal_clock_skew"`.
  if (raised.length > 0)
    log.warn({ alert: 'terminal_clock_skew', ...fields }, 'terminal clock skew');
}

/**
 * `noteClockSkew` for a write that read the parcel's previous event time before it
 * (`previousAt`): in the caller's transaction as part of it; online after the commit,
 * where an alert that could not be written is logged and the kiosk still gets its answer
 * (the write is committed already). Nothing without a reporter (the sandbox).
 */
export async function noteClockSkewAfter(
  db: WriteDb,
  reporter: Reporter | undefined,
  event: Omit<ReportedEvent, 'terminalId'>,
  previousAt: Date | null,
): Promise<void> {
  if (!reporter) return;
  const skew = noteClockSkew(
    'tx' in db ? db.tx : db.sql,
    reporter.log,
    { ...event, terminalId: reporter.terminalId },
    { previousAt },
  );
  await ('tx' in db
    ? skew
    : skew.catch((error: unknown) =>
        reporter.log.error({ err: error }, 'clock skew alert not recorded'),
      ));
}
