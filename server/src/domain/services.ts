import type { ServerConfig } from '../config';
import type { Sql } from '../db/connect';
import type { Logger } from '../logger';

/** What request handlers and background work share within one server process. */
export interface Services {
  sql: Sql;
  config: ServerConfig;
  logger: Logger;
  /** Called after a commit that queued outbound messages, so they leave at once. */
  nudge: { sms(): void };
}
