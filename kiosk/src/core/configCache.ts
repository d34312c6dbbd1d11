import type { TerminalConfig } from '@locker/shared';
import type { KioskDatabase } from './database';
import { Answers } from './tolerant';

/**
 * The last configuration the service sent (support phone, idle timeout), kept so a kiosk
 * that boots while the service is down still shows the support phone. The spec's rule
 * "apply as received" holds: the heartbeat's answer always replaces it.
 */
export class ConfigCache {
  constructor(private readonly db: KioskDatabase) {}

  load(): TerminalConfig | null {
    const row = this.db.prepare('select body from terminal_config where id = 1').get() as
      { body: string } | undefined;
    if (!row) return null;
    const parsed = Answers.config.safeParse(JSON.parse(row.body));
    return parsed.success ? parsed.data : null;
  }

  save(config: TerminalConfig, at = new Date()): void {
    this.db
      .prepare(
        `insert into terminal_config (id, body, received_at) values (1, ?, ?)
         on conflict (id) do update set body = excluded.body, received_at = excluded.received_at`,
      )
      .run(JSON.stringify(config), at.toISOString());
  }
}
