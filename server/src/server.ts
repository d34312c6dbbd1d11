import type { AddressInfo } from 'node:net';
import { createApp } from './app';
import { createHttpServer } from './http/nodeServer';
import {
  ConfigError,
  DEV_PICKUP_SECRET,
  developmentSecretProblem,
  loadConfig,
  type ServerConfig,
} from './config';
import { connect, localSocketUrl, type Sql } from './db/connect';
import { ensureEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded';
import { migrate } from './db/migrate';
import type { Services } from './services';
import { createLogger, type Logger } from './logger';
import { markSilentTerminalsOffline } from './ops/liveness';
import { pruneRateLimitWindows } from './ratelimit/slidingWindow';
import { startPoller, type Poller } from './ops/poller';
import { deliverDue } from './outbox/outbox';
import { smsChannel } from './sms/channel';
import { pruneIdempotencyKeys } from './merchant/idempotency';
import { sendStorageNotices } from './notices/storage';
import { webhookChannel } from './webhooks/channel';
import { startWebhookDispatcher } from './webhooks/dispatcher';
import { missingKeys, resealSecrets, type Keyring } from './webhooks/secretKeys';
import { listenForAuthChanges, committedVersionOf, TerminalAuthCache } from './terminal/authCache';
import { smsTransportFrom } from './sms/transports';
import { DepositSetEtags } from './terminal/depositSetEtags';
import { PickupSetVersions } from './terminal/pickupSetVersions';
import { startVerifierWorker } from './terminal/verifierWorker';
import { LinkCommands } from './link/commands';
import { alertDoorsLeftOpen } from './link/doorStates';
import { LinkHub } from './link/hub';
import { linkSigner } from './link/signing';
import { AlertHub } from './alerts/stream';
import { CabinetAnnouncer } from './terminal/cabinetAnnouncer';
import { opsWebhookChannel, syncOpsWebhookTarget } from './alerts/webhook';

/** Connections of the pool for writes that may be lost at a crash (`softSql`). */
export const SOFT_POOL_SIZE = 4;

export interface RunningServer {
  url: string;
  port: number;
  sql: Sql;
  /** The pool of writes that may be lost at a crash (heartbeats, liveness): asynchronous commit. */
  softSql: Sql;
  logger: Logger;
  config: ServerConfig;
  /** Runs the SMS and webhook deliveries once, now, and waits for them to finish. */
  deliverNow(): Promise<void>;
  /** The live link: this instance's kiosk connections, and commands to any kiosk. */
  link: Services['link'];
  /** The link's sweep now: undelivered commands expired, doors left open alerted. */
  sweepLink(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDatabase {
  url: string;
  sql: Sql;
  embedded?: EmbeddedDatabase;
}

/** Opens the configured database: `DATABASE_URL`, else the embedded PostgreSQL. */
export async function openDatabase(config: ServerConfig): Promise<OpenDatabase> {
  if (config.databaseUrl) {
    return {
      url: config.databaseUrl,
      sql: connect(config.databaseUrl, { max: config.dbPoolSize }),
    };
  }
  const embedded = await ensureEmbeddedPostgres({
    dataDir: config.embeddedDataDir,
    port: config.embeddedPort,
  });
  // Over its Unix socket: the same work for PostgreSQL, less for the kernel per query
  // (the peak-hour bench: a quarter less CPU per request than over loopback TCP).
  const url = localSocketUrl(embedded.url) ?? embedded.url;
  return { url, sql: connect(url, { max: config.dbPoolSize }), embedded };
}

/**
 * Every stored webhook secret must open with the configured keys (a server that could
 * not sign would fail every delivery); those still in clear (before migration 012, or
 * written by an older instance) are encrypted now.
 */
async function prepareWebhookSecrets(sql: Sql, keyring: Keyring, logger: Logger): Promise<void> {
  const missing = await missingKeys(sql, keyring);
  if (missing.length > 0) {
    throw new ConfigError(
      `bad setting: WEBHOOK_SECRET_KEYS must still list the key ${missing.map((k) => `"${k}"`).join(', ')}: webhook secrets are encrypted with it (keep it after the new first key until \`pnpm admin webhooks rotate-key\` has run)`,
    );
  }
  const sealed = await resealSecrets(sql, keyring, 'clear');
  if (sealed > 0)
    logger.info({ endpoints: sealed }, 'webhook secrets stored in clear now encrypted');
}

/** Migrates, serves both interfaces and runs the background work until `close()`. */
export async function startServer(overrides: Partial<ServerConfig> = {}): Promise<RunningServer> {
  const config = { ...loadConfig(), ...overrides };
  const secretProblem = developmentSecretProblem(config);
  if (secretProblem) throw new ConfigError(secretProblem);
  // Lines for a person where one reads them; JSON in production and wherever it is piped.
  const logger = createLogger(config.logLevel, {
    pretty: process.stdout.isTTY === true && !config.production,
  });
  const { url, sql, embedded } = await openDatabase(config);
  try {
    await migrate(sql);
    await syncOpsWebhookTarget(sql, config);
    await prepareWebhookSecrets(sql, config.webhookSecretKeys, logger);
  } catch (error) {
    await sql.end({ timeout: 1 });
    await embedded?.stop();
    throw error;
  }
  // Soft state waits at most 2 s for a row lock: the heartbeats of an instance share one
  // statement, so a terminal's row held elsewhere (an operator's open transaction) would
  // otherwise hold up every kiosk's heartbeat here, not only its own.
  const softSql = connect(url, {
    max: SOFT_POOL_SIZE,
    asynchronousCommit: true,
    lockTimeoutMs: 2000,
    // Its statements are keyed writes (heartbeats, link and door states): one plan each.
    genericPlans: true,
  });
  const authCache = new TerminalAuthCache();
  const unlisten = await listenForAuthChanges(sql, authCache, logger);
  const announcer = new CabinetAnnouncer(softSql, logger);
  const pickupSets = new PickupSetVersions(sql);
  const unlistenPickupSets = await pickupSets.listen(logger);
  const depositSets = new DepositSetEtags(sql);
  const unlistenDepositSets = await depositSets.listen(logger);

  const smsPolicy = smsChannel(smsTransportFrom(config.smsTransport, config.twilio));
  const pollers: Poller[] = [];
  // Gathered: a commit's nudge waits at most 50 ms for the next claim (ops/poller.ts).
  const sms = startPoller('sms', 1000, logger, () => deliverDue(sql, smsPolicy, logger), {
    gatherMs: 50,
  });
  pollers.push(sms);
  const webhookPolicy = webhookChannel(sql, {
    destination: { allowPrivate: config.webhookAllowPrivate },
    keyring: config.webhookSecretKeys,
  });
  // Not in batches like the SMS: each delivery on its own, fair across endpoints.
  const webhooks = startWebhookDispatcher(sql, webhookPolicy, logger);
  pollers.push(webhooks);
  // The offline pickup verifiers deposits leave to be made (VERIFIER_CONCURRENCY at once).
  const verifiers = startVerifierWorker(
    { sql, pickupCodeSecret: config.pickupCodeSecret, logger, versions: pickupSets },
    config.verifierConcurrency,
  );
  if (verifiers) pollers.push(verifiers);
  // Only an instance that knows the operations webhook delivers to it.
  const opsWebhookPolicy = opsWebhookChannel(config);
  const opsWebhooks = config.opsWebhookUrl
    ? startPoller('ops-webhooks', 1000, logger, () => deliverDue(sql, opsWebhookPolicy, logger))
    : undefined;
  if (opsWebhooks) pollers.push(opsWebhooks);
  const alertHub = new AlertHub(sql, logger);
  // Every alert change (on any instance) is announced: the webhook leaves at once.
  const stopAlertHub = await alertHub.start(() => opsWebhooks?.nudge());
  pollers.push(
    startPoller('liveness', config.sweepIntervalMs, logger, async () => {
      await markSilentTerminalsOffline(sql, logger, config.offlineAfterSeconds);
      await pruneRateLimitWindows(sql);
      await pruneIdempotencyKeys(sql);
      if ((await sendStorageNotices(sql)) > 0) {
        sms.nudge();
        webhooks.nudge();
      }
      return false;
    }),
  );

  const linkHub = new LinkHub({
    sql,
    softSql,
    authCache,
    logger,
    pingSeconds: config.linkPingSeconds,
  });
  await linkHub.start();
  const linkCommands = new LinkCommands(
    sql,
    config.linkSigningKey ? linkSigner(config.linkSigningKey) : undefined,
    logger,
  );
  const unlistenOutcomes = await linkCommands.listen();
  const sweepLink = async () => {
    await linkCommands.expireDue();
    await alertDoorsLeftOpen(sql, logger, config.doorLeftOpenSeconds);
  };
  // Every second: a command's 60 s are counted to the second.
  pollers.push(
    startPoller('link', 1000, logger, async () => {
      await sweepLink();
      return false;
    }),
  );

  const services: Services = {
    sql,
    softSql,
    authCache,
    config,
    logger,
    nudge: {
      sms: () => sms.nudge(),
      webhooks: () => webhooks.nudge(),
      verifiers: () => verifiers?.nudge(),
    },
    pickupSets,
    depositSets,
    cabinetChanged: async (stationId, committedVersion, options) => {
      const version = committedVersion
        ? BigInt(committedVersion)
        : await committedVersionOf(sql, stationId);
      if (version === undefined) return;
      authCache.noteVersion(stationId, version);
      if (options?.announce) announcer.announce(stationId, version);
    },
    link: { hub: linkHub, commands: linkCommands },
    alertHub,
  };
  const http = createHttpServer(createApp(services).callback(), logger);
  http.on('upgrade', (req, socket, head) => linkHub.upgrade(req, socket, head));
  try {
    await new Promise<void>((resolve, reject) => {
      http.once('listening', resolve);
      http.once('error', reject);
      http.listen(config.port, config.host);
    });
  } catch (error) {
    // A taken port: leave nothing running behind the one-sentence error.
    await Promise.all(pollers.map((p) => p.stop()));
    await linkHub.close();
    await unlistenOutcomes();
    await stopAlertHub();
    await unlistenPickupSets();
    await unlistenDepositSets();
    await unlisten();
    await Promise.all([sql.end({ timeout: 1 }), softSql.end({ timeout: 1 })]);
    await embedded?.stop();
    throw error;
  }
  const port = (http.address() as AddressInfo).port;
  // The recipients' links point here unless PUBLIC_URL says where they reach the service.
  config.publicUrl ??= `http://localhost:${port}`;
  logger.info({ port, database: embedded ? 'embedded' : 'DATABASE_URL' }, 'server listening');
  if (config.pickupCodeSecret === DEV_PICKUP_SECRET) {
    logger.warn(
      'development mode: pickup codes are signed with the public development secret; never use it for real parcels',
    );
  }

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    sql,
    softSql,
    logger,
    config,
    deliverNow: async () => {
      await Promise.all([sms.runNow(), webhooks.runNow(), opsWebhooks?.runNow()]);
    },
    link: services.link,
    sweepLink,
    close: async () => {
      // The links first: upgraded sockets are no longer the HTTP server's to close.
      await linkHub.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      await Promise.all(pollers.map((p) => p.stop()));
      await announcer.close();
      await unlistenOutcomes();
      await stopAlertHub();
      await unlistenPickupSets();
      await unlistenDepositSets();
      await unlisten();
      await Promise.all([sql.end({ timeout: 5 }), softSql.end({ timeout: 5 })]);
      await embedded?.stop();
    },
  };
}
