// The public surface of the server: what `pnpm start`, the journeys in test/ and the
// benchmarks use. Anything not exported here is the server's own business.
export { startServer, openDatabase, type RunningServer, type OpenDatabase } from './server';
export { loadConfig, ConfigError, REPO_ROOT, type ServerConfig } from './config';
export { startupMessage, startupProblem } from './startupErrors';
export { connect, type Sql } from './db/connect';
export { migrate } from './db/migrate';
export {
  ensureEmbeddedPostgres,
  EmbeddedPostgresError,
  type EmbeddedDatabase,
  type EmbeddedOptions,
} from './db/embedded';
export * as admin from './admin/commands';
export { runAdmin, type AdminIo } from './admin/run';
export { createLogger, type Logger } from './logger';
export { generateLinkKey, linkSigner } from './link/signing';
// An operator account as `operator create` makes one (the demo's admin in `pnpm start`).
export { createOperator } from './operators/accounts';
export { cliActor } from './operators/audit';
