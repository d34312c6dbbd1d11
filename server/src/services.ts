import type { AlertHub } from './alerts/stream';
import type { ServerConfig } from './config';
import type { Sql } from './db/connect';
import type { Logger } from './logger';
import type { LinkCommands } from './link/commands';
import type { LinkHub } from './link/hub';
import type { TerminalAuthCache } from './terminal/authCache';
import type { DepositSetEtags } from './terminal/depositSetEtags';
import type { PickupSetVersions } from './terminal/pickupSetVersions';

/** What request handlers and background work share within one server process. */
export interface Services {
  sql: Sql;
  /**
   * Connections with `synchronous_commit = off`, for soft state only (heartbeat times):
   * a crash may lose the last few milliseconds of it, which nothing depends on.
   */
  softSql: Sql;
  authCache: TerminalAuthCache;
  config: ServerConfig;
  logger: Logger;
  /**
   * Called after a commit that queued outbound messages, so they leave at once; and after
   * a deposit, so this instance's verifier worker makes its offline verifier at once.
   */
  nudge: { sms: () => void; webhooks: () => void; verifiers: () => void };
  /** Each station's verifier version, with its cabinet version its offline pickup set's. */
  pickupSets: PickupSetVersions;
  /** Each station's offline deposit set's ETag, while nothing it is made of changed. */
  depositSets: DepositSetEtags;
  /**
   * Called after a commit that changed a station's door grid: this instance forgets the
   * station's cached version at once rather than when the notification arrives.
   * `committedVersion`, when the transaction read it already (under the station lock,
   * so it is what the commit made), saves the query. `announce`: the transaction went
   * through `underStationLock`, whose commit does not notify the other instances
   * (migration 027): this announces the version to them.
   */
  cabinetChanged: (
    stationId: string,
    committedVersion?: string | null,
    options?: { announce?: boolean },
  ) => Promise<void>;
  /** The live link to kiosks: this instance's connections, and commands from any instance. */
  link: { hub: LinkHub; commands: LinkCommands };
  /** This instance's subscribers to the live alert stream (fed by NOTIFY locker_alert). */
  alertHub: AlertHub;
}
