import { randomUUID } from 'node:crypto';
import type { KioskDatabase } from './database';
import type { ReportBody, ReportKind, TerminalClient } from './client';
import type { QueuedAs } from './doorSteps';
import { claimWindow, type QueuedReport } from './reportOrder';

// The queue's rows live in the tables `confirms` and `stuck_confirms`, named when door
// confirms were all it carried; renaming them would cost a migration for a word only
// (docs/decisions.md).

type Row = QueuedReport;

const MAX_AGE_MS = 7 * 24 * 3600 * 1000;
/** Reports in flight at once during a replay. */
const WINDOW = 16;

export interface QueueEvents {
  /** A report could not be delivered in 7 days: kept aside, operations must hear of it. */
  stuck(report: { kind: ReportKind; body: object; reason: string }): void;
  changed(): void;
  /**
   * The service took a report (200), or answered it 404: done before, or handled
   * otherwise meanwhile (what a report made on the kiosk's own must hear of).
   */
  answered?(report: { kind: ReportKind; body: Record<string, unknown> }, status: 200 | 404): void;
}

/**
 * The durable report queue. Every report to the service (door and return confirms, a
 * return taken out, a deposit undone, a door fault, the door supervision's door and
 * cabinet events) is written here, with `occurred_at` = when it happened (the door
 * closed, the door failed, the door was seen open), before it is sent, and leaves only
 * when the service answered 200 (done) or 404 (done before). Anything else keeps it for
 * replay, in order, with backoff.
 */
export class ReportQueue {
  private replaying: Promise<void> | undefined;
  private backoffMs = 1000;
  private closed = false;

  constructor(
    private readonly db: KioskDatabase,
    private readonly client: TerminalClient,
    private readonly events: QueueEvents,
    private readonly now = () => Date.now(),
  ) {}

  /** Synchronous, durable write; returns its row id once it is on disk. */
  add<K extends ReportKind>(
    kind: K,
    body: Omit<ReportBody<K>, 'occurred_at'>,
    occurredAt: Date,
  ): number {
    return this.write(kind, body, occurredAt);
  }

  /**
   * A door or cabinet event of the door supervision, given its id here, before it is on
   * disk: a resend (after a crash) carries the same id, and the service records it once.
   */
  addEvent<K extends 'door_event' | 'cabinet_event'>(
    kind: K,
    body: Omit<ReportBody<K>, 'occurred_at' | 'eventId'>,
    occurredAt: Date,
  ): number {
    return this.write(kind, { eventId: randomUUID(), ...body }, occurredAt);
  }

  /** `add` for a report decided elsewhere (doorSteps.ts). */
  addReport(report: QueuedAs, occurredAt: Date): number {
    return this.write(report.kind, report.body, occurredAt);
  }

  private write(kind: ReportKind, body: object, occurredAt: Date): number {
    const stored = { ...body, occurred_at: occurredAt.toISOString() };
    const { lastInsertRowid } = this.db
      .prepare(
        'insert into confirms (kind, body, occurred_at, next_attempt_at, created_at) values (?, ?, ?, ?, ?)',
      )
      .run(kind, JSON.stringify(stored), stored.occurred_at, this.now(), this.now());
    this.events.changed();
    return Number(lastInsertRowid);
  }

  /** Still waiting to be delivered (not sent yet, or refused for now). */
  isPending(id: number): boolean {
    return this.db.prepare('select 1 from confirms where id = ?').get(id) !== undefined;
  }

  pending(): number {
    return (this.db.prepare('select count(*) as n from confirms').get() as { n: number }).n;
  }

  stuck(): number {
    return (this.db.prepare('select count(*) as n from stuck_confirms').get() as { n: number }).n;
  }

  /** Sends what is due, oldest first; one replay at a time. */
  replay(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.replaying ??= this.drain().finally(() => (this.replaying = undefined));
    return this.replaying;
  }

  /**
   * Sends due reports a window at a time, concurrently, but never two of one parcel at
   * once nor one before an earlier one of its parcel that waits (reportOrder.ts): a
   * parcel's reports reach the service in the order they happened. Rows done in a window
   * are deleted in one transaction; a crash before that only resends them, and the
   * service answers a resent report with 404, which counts as done.
   */
  private async drain(): Promise<void> {
    const queued = this.db.prepare(
      'select id, kind, body, occurred_at, attempts, next_attempt_at from confirms order by id',
    );
    for (;;) {
      const window = claimWindow(queued.iterate() as IterableIterator<Row>, this.now(), WINDOW);
      if (window.length === 0) return;
      const outcomes = await Promise.all(window.map((row) => this.send(row)));
      const done = window.filter((_, i) => outcomes[i] === 'done');
      this.db.transaction(() =>
        done.forEach((row) => this.db.prepare('delete from confirms where id = ?').run(row.id)),
      )();
      if (done.length) {
        this.backoffMs = 1000;
        this.events.changed();
      }
      if (outcomes.includes('retry')) {
        this.backoffMs = Math.min(this.backoffMs * 2, 60_000);
        return;
      }
    }
  }

  private async send(row: Row): Promise<'done' | 'retry' | 'aside'> {
    if (this.now() - Date.parse(row.occurred_at) > MAX_AGE_MS) {
      this.setAside(row, 'older than 7 days: the service no longer accepts it');
      return 'aside';
    }
    const answer = await this.client.report(
      row.kind,
      JSON.parse(row.body) as ReportBody<ReportKind>,
    );
    if (answer.ok || answer.status === 404)
      this.events.answered?.(
        { kind: row.kind, body: JSON.parse(row.body) as Record<string, unknown> },
        answer.ok ? 200 : 404,
      );
    if (answer.ok || answer.status === 404) return 'done';
    if (answer.status === 400 || answer.code === 'bad_request') {
      // The service refuses it for good (occurred_at out of range): retrying cannot help.
      this.setAside(row, `refused: ${answer.code ?? answer.status}`);
      return 'aside';
    }
    // Network, 5xx, 401 (offline mark), 429, an unusable answer: keep it for later (a
    // resend of a report the service did take is answered 404, which counts as done).
    this.db
      .prepare(
        'update confirms set attempts = attempts + 1, last_error = ?, next_attempt_at = ? where id = ?',
      )
      .run(`${answer.status} ${answer.code ?? ''}`.trim(), this.now() + this.backoffMs, row.id);
    return 'retry';
  }

  private setAside(row: Row, reason: string): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          'insert into stuck_confirms (kind, body, occurred_at, reason, set_aside_at) values (?, ?, ?, ?, ?)',
        )
        .run(row.kind, row.body, row.occurred_at, reason, this.now());
      this.db.prepare('delete from confirms where id = ?').run(row.id);
    })();
    this.events.stuck({ kind: row.kind, body: JSON.parse(row.body) as object, reason });
    this.events.changed();
  }

  /** After a reconnection: everything is due again, at once. */
  retryNow(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.db.prepare('update confirms set next_attempt_at = ?').run(this.now());
    this.backoffMs = 1000;
    return this.replay();
  }

  /**
   * Before the database closes: no replay starts any more, and the one in flight (which
   * writes when its answers arrive) has finished. Its rows stay queued for the next start.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.replaying?.catch(() => undefined);
  }
}
