import type { Alert } from '@locker/shared';
import type { Sql } from '../db/connect';
import type { Logger } from '../logger';
import { alertById } from './lifecycle';

export type AlertEvent = 'opened' | 'occurred' | 'acknowledged' | 'resolved';

interface Subscriber {
  /** Technicians: the stations they see; null: all. */
  stations: string[] | null;
  send: (event: AlertEvent, alert: Alert) => void;
}

/**
 * This instance's side of the live alert stream. Every alert change, on any instance or
 * from the CLI, is announced by a trigger with NOTIFY locker_alert on commit; each
 * instance listens, reads the alert once, and hands it to its own subscribers (the
 * open `GET /ops/v1/alerts/stream` responses) in the order the notifications came.
 */
export class AlertHub {
  private readonly subscribers = new Set<Subscriber>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
  ) {}

  /** Listens until the answered function is called; `onChange` runs on every change too. */
  async start(onChange: () => void = () => {}): Promise<() => Promise<void>> {
    const subscription = await this.sql.listen('locker_alert', (payload) => {
      onChange();
      this.chain = this.chain
        .then(() => this.deliver(payload))
        .catch((error: unknown) => {
          this.log.error({ err: error }, 'alert stream: could not read an announced alert');
        });
    });
    return async () => {
      await subscription.unlisten();
      await this.chain;
    };
  }

  subscribe(stations: string[] | null, send: Subscriber['send']): () => void {
    const subscriber = { stations, send };
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  get size(): number {
    return this.subscribers.size;
  }

  private async deliver(payload: string): Promise<void> {
    if (this.subscribers.size === 0) return;
    const { id, event } = JSON.parse(payload) as { id: string; event: AlertEvent };
    const alert = await alertById(this.sql, id);
    if (!alert) return;
    for (const s of this.subscribers) {
      if (
        s.stations === null ||
        (alert.station_id !== null && s.stations.includes(alert.station_id))
      ) {
        s.send(event, alert);
      }
    }
  }
}
