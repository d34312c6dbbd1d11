import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerConfig {
  port: number;
  host: string;
  /** Unset: the embedded PostgreSQL under `.data/postgres`. */
  databaseUrl: string | undefined;
  embeddedDataDir: string;
  embeddedPort: number;
  /** Keys the pickup-code HMAC; changing it invalidates every code awaiting pickup. */
  pickupCodeSecret: string;
  smsTransport: string;
  logLevel: string;
  /** How long without a heartbeat before a terminal is marked offline. */
  offlineAfterSeconds: number;
  sweepIntervalMs: number;
  dbPoolSize: number;
  /** Merchant interface requests per organization per minute (sliding). */
  merchantRequestsPerMinute: number;
}

const DEV_PICKUP_SECRET = 'development-only-pickup-code-secret';

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  return {
    port: Number(env.PORT ?? 8080),
    host: env.HOST ?? '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    embeddedDataDir: env.EMBEDDED_PG_DIR ?? path.join(REPO_ROOT, '.data/postgres'),
    embeddedPort: Number(env.EMBEDDED_PG_PORT ?? 54329),
    pickupCodeSecret: env.PICKUP_CODE_SECRET ?? DEV_PICKUP_SECRET,
    smsTransport: env.SMS_TRANSPORT ?? 'console',
    logLevel: env.LOG_LEVEL ?? 'info',
    offlineAfterSeconds: Number(env.OFFLINE_AFTER_SECONDS ?? 180),
    sweepIntervalMs: Number(env.SWEEP_INTERVAL_MS ?? 15_000),
    dbPoolSize: Number(env.DB_POOL_SIZE ?? 20),
    merchantRequestsPerMinute: Number(env.MERCHANT_REQUESTS_PER_MINUTE ?? 1200),
  };
}
