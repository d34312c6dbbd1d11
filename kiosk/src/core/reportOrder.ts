import type { ReportKind } from './client';

/** A row of the report queue, as the claim reads it. */
export interface QueuedReport {
  id: number;
  kind: ReportKind;
  body: string;
  occurred_at: string;
  attempts: number;
  /** Epoch ms: not sent again before (backoff after a failed attempt). */
  next_attempt_at: number;
}

/** The parcel a report concerns: its shipment, return or tracking number. */
export function parcelOf(report: QueuedReport): string {
  const body = JSON.parse(report.body) as {
    shipmentId?: string;
    returnId?: string;
    trackingNumber?: string;
  };
  return body.shipmentId ?? body.returnId ?? body.trackingNumber ?? `#${report.id}`;
}

/**
 * The reports that may go out now, side by side: `queued` is the whole queue, oldest
 * first. A report goes only after every report it follows has gone:
 * - a parcel's reports go one at a time, in the order they happened: one due while an
 *   earlier one of its parcel waits out its backoff is held back (it would overtake it);
 *   and the window ends at the first report of a parcel already in it;
 * - a door fault changes what the service does with that door's other reports (it
 *   releases a held return, undoes a fresh deposit), and a report names no door: a fault
 *   goes alone, once nothing before it waits, and everything after it waits for it.
 * Reading stops as soon as the window is settled: `queued` may be a lazy cursor.
 */
export function claimWindow(
  queued: Iterable<QueuedReport>,
  now: number,
  size: number,
): QueuedReport[] {
  const window: QueuedReport[] = [];
  const inWindow = new Set<string>();
  /** Parcels with an earlier report still waiting. */
  const held = new Set<string>();
  let somethingWaits = false;
  for (const report of queued) {
    const due = report.next_attempt_at <= now;
    if (report.kind === 'door_fault') {
      if (due && !somethingWaits && window.length === 0) window.push(report);
      break;
    }
    const parcel = parcelOf(report);
    if (held.has(parcel)) continue;
    if (!due) {
      held.add(parcel);
      somethingWaits = true;
      continue;
    }
    if (inWindow.has(parcel)) break;
    inWindow.add(parcel);
    window.push(report);
    if (window.length === size) break;
  }
  return window;
}
