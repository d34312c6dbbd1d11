import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DEVELOPMENT_KEYRING, type Keyring } from './webhooks/secretKeys';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerConfig {
  production: boolean;
  /**
   * `LOCKER_DEV=1` (or `pnpm serve -- --dev`; `pnpm start` sets it): the public development
   * `PICKUP_CODE_SECRET` is allowed. Without it the server refuses to start on that secret.
   */
  development: boolean;
  port: number;
  host: string;
  /** Unset: the embedded PostgreSQL under `.data/postgres`. */
  databaseUrl: string | undefined;
  embeddedDataDir: string;
  embeddedPort: number;
  /** Keys the pickup-code HMAC; changing it invalidates every code awaiting pickup. */
  pickupCodeSecret: string;
  smsTransport: string;
  /** The Twilio account, when its three settings are given (required with `twilio`). */
  twilio: TwilioSettings | undefined;
  logLevel: string;
  /** How long without a heartbeat before a terminal is marked offline. */
  offlineAfterSeconds: number;
  sweepIntervalMs: number;
  /**
   * How long the first heartbeat after a quiet moment waits for others to share its
   * statement (terminal/heartbeatBatch.ts); 0: written at once.
   */
  heartbeatBatchMs: number;
  dbPoolSize: number;
  /**
   * Offline pickup verifiers this instance computes at once (a 16 MiB scrypt each, on
   * libuv's thread pool; terminal/verifierWorker.ts); 0: this instance makes none.
   */
  verifierConcurrency: number;
  /** Merchant interface requests per organization in any 60 s (an exact sliding window). */
  merchantRequestsPerMinute: number;
  /**
   * The seed (base64, 32 bytes) of the Ed25519 key that signs commands to kiosks over the
   * live link; unset: the link runs (door states, hints) but no command can be issued.
   */
  linkSigningKey: string | undefined;
  /** How often the service pings each kiosk's link; a kiosk silent for two pings is dropped. */
  linkPingSeconds: number;
  /** A door seen open this long with no door session at it raises an alert. */
  doorLeftOpenSeconds: number;
  /**
   * Where recipients reach the service (the pickup SMS links to `/p/…` under it). Unset:
   * the address it listens on, which only suits development.
   */
  publicUrl?: string | undefined;
  /** Operator sessions end after this long without a request... */
  opsSessionIdleMinutes: number;
  /** ...and this long after sign-in, whatever. */
  opsSessionAbsoluteHours: number;
  /** The session cookie's `Secure` flag (and `__Host-` name); on by default in production. */
  opsCookieSecure: boolean;
  /** Origins allowed to send unsafe requests to /ops/v1; empty: the request's own host. */
  opsAllowedOrigins: string[];
  /** Where the console is served, for the set-up link `operator create` prints. */
  opsPublicUrl: string;
  /** The built operator console (`console/dist`), served under /ops/. */
  opsConsoleDir: string;
  /** Operations webhook (alert events, Standard Webhooks); unset: none is sent. */
  opsWebhookUrl: string | undefined;
  opsWebhookSecret: string | undefined;
  /** Encrypts operators' TOTP secrets; unset: derived from PICKUP_CODE_SECRET. */
  operatorSecretKey: string | undefined;
  /** Take the client address from X-Forwarded-For (behind a reverse proxy you run). */
  trustProxy: boolean;
  /** The clock of operator sessions and TOTP; not a setting: tests move it. */
  clock?: () => Date;
  /**
   * Webhooks may go to loopback, private and other internal addresses: for development
   * and the sandbox's local receivers, never for merchants on a shared deployment.
   */
  webhookAllowPrivate: boolean;
  /** Encrypt webhook signing secrets at rest: the first encrypts, every one decrypts. */
  webhookSecretKeys: Keyring;
}

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  from: string;
  /** Where Twilio's API is; a stand-in's address in tests and benchmarks. */
  baseUrl: string;
}

export const DEV_PICKUP_SECRET = 'development-only-pickup-code-secret';

/** A bad setting: the message names the variable and says what it must be. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A whole number from the environment, written as digits only (no `8080abc`, no `1e3`). */
function whole(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  return z
    .string()
    .trim()
    .regex(/^\d+$/, message)
    .transform(Number)
    .pipe(z.number().int().min(min, message).max(max, message));
}

const KEYRING_FORMAT =
  'must be ID:KEY[,ID:KEY…] (the first encrypts), each ID letters, digits, - or _ and each KEY 32 bytes in base64 (openssl rand -base64 32)';

/** `WEBHOOK_SECRET_KEYS`: `k2:<base64>,k1:<base64>`, ids unique. */
function keyring(value: string, ctx: z.RefinementCtx): Keyring {
  const keys = value.split(',').map((entry) => {
    const match = /^\s*([A-Za-z0-9_-]{1,32}):([A-Za-z0-9+/]{43}=)\s*$/.exec(entry);
    return match ? { id: match[1]!, key: Buffer.from(match[2]!, 'base64') } : undefined;
  });
  const ids = keys.map((k) => k?.id);
  if (
    keys.some((k) => k === undefined || k.key.length !== 32) ||
    new Set(ids).size !== ids.length
  ) {
    ctx.addIssue({ code: 'custom', message: KEYRING_FORMAT });
    return z.NEVER;
  }
  return keys as Keyring;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Every setting the server reads, by the name of its environment variable. */
const EnvSchema = z
  .object({
    NODE_ENV: z.string().optional(),
    LOCKER_DEV: z.enum(['0', '1'], 'must be 1 (development) or 0').optional(),
    PORT: whole(0, 65535).default(8080),
    HOST: z.string().trim().min(1, 'must be a host name or address').default('0.0.0.0'),
    DATABASE_URL: z
      .string()
      .trim()
      .optional()
      .transform((v) => v || undefined)
      .refine(
        (v) => v === undefined || /^postgres(ql)?:\/\/.+/.test(v),
        'must be a postgres:// URL, e.g. postgres://user:password@host:5432/database',
      ),
    EMBEDDED_PG_DIR: z.string().trim().min(1).default(path.join(REPO_ROOT, '.data/postgres')),
    EMBEDDED_PG_PORT: whole(1, 65535).default(54329),
    PICKUP_CODE_SECRET: z
      .string()
      .min(16, 'must be at least 16 characters (a long random value)')
      .default(DEV_PICKUP_SECRET),
    SMS_TRANSPORT: z
      .string()
      .trim()
      .default('console')
      .refine(
        (v) => v === 'console' || v === 'twilio' || /^file:.+/.test(v),
        'must be console, file:PATH or twilio',
      ),
    TWILIO_ACCOUNT_SID: z.string().optional(),
    TWILIO_AUTH_TOKEN: z.string().optional(),
    TWILIO_FROM: z.string().optional(),
    TWILIO_BASE_URL: z
      .string()
      .trim()
      .regex(/^https?:\/\/.+/, 'must be an http:// or https:// URL')
      .default('https://api.twilio.com'),
    LOG_LEVEL: z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`).default('info'),
    OFFLINE_AFTER_SECONDS: whole(1, 86_400).default(180),
    SWEEP_INTERVAL_MS: whole(10, 3_600_000).default(15_000),
    HEARTBEAT_BATCH_MS: whole(0, 1000).default(20),
    DB_POOL_SIZE: whole(1, 1000).default(20),
    VERIFIER_CONCURRENCY: whole(0, 64).default(1),
    MERCHANT_REQUESTS_PER_MINUTE: whole(1, 10_000_000).default(1200),
    LINK_SIGNING_KEY: z
      .string()
      .trim()
      .regex(
        /^[A-Za-z0-9+/_-]{42,44}={0,2}$/,
        'must be the base64 of a 32-byte Ed25519 seed (pnpm admin link keygen prints one)',
      )
      .optional(),
    LINK_PING_SECONDS: whole(1, 3600).default(25),
    DOOR_LEFT_OPEN_SECONDS: whole(1, 86_400).default(300),
    PUBLIC_URL: z
      .string()
      .trim()
      .regex(
        /^https?:\/\/[^/?#]+$/,
        'must be an http:// or https:// origin, e.g. https://parcels.example',
      )
      .optional(),
    OPS_SESSION_IDLE_MINUTES: whole(1, 24 * 60).default(30),
    OPS_SESSION_ABSOLUTE_HOURS: whole(1, 24 * 7).default(12),
    OPS_COOKIE_SECURE: z.enum(['true', 'false'], 'must be true or false').optional(),
    OPS_ALLOWED_ORIGINS: z
      .string()
      .default('')
      .transform((v) =>
        v
          .split(',')
          .map((o) => o.trim().replace(/\/$/, ''))
          .filter(Boolean),
      )
      .refine(
        (list) => list.every((o) => /^https?:\/\/[^/\s]+$/.test(o)),
        'must be comma-separated origins, e.g. https://ops.example.com',
      ),
    OPS_PUBLIC_URL: z
      .string()
      .trim()
      .regex(/^https?:\/\/\S+$/, 'must be an http(s) URL')
      .optional(),
    OPS_CONSOLE_DIR: z.string().trim().min(1).optional(),
    OPS_WEBHOOK_URL: z
      .string()
      .trim()
      .regex(/^https?:\/\/\S+$/, 'must be an http(s) URL')
      .optional(),
    OPS_WEBHOOK_SECRET: z
      .string()
      .trim()
      .regex(
        /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/,
        'must be a Standard Webhooks secret (whsec_ and base64)',
      )
      .optional(),
    OPERATOR_SECRET_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
    TRUST_PROXY: z.enum(['true', 'false'], 'must be true or false').default('false'),
    WEBHOOK_SECRET_KEYS: z
      .string()
      .optional()
      .transform((value, ctx) => (value === undefined ? undefined : keyring(value, ctx))),
    WEBHOOK_ALLOW_PRIVATE: z
      .enum(['true', 'false'], 'must be true or false')
      .default('false')
      .transform((v) => v === 'true'),
  })
  .superRefine((env, ctx) => {
    if (env.OPS_WEBHOOK_URL && !env.OPS_WEBHOOK_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['OPS_WEBHOOK_SECRET'],
        message: 'is required with OPS_WEBHOOK_URL (it signs each delivery)',
      });
    }
    if (env.SMS_TRANSPORT === 'twilio') {
      for (const name of ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const) {
        if (!env[name])
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message: 'is required with SMS_TRANSPORT=twilio',
          });
      }
    }
    if (env.NODE_ENV !== 'production') return;
    if (env.PICKUP_CODE_SECRET === DEV_PICKUP_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['PICKUP_CODE_SECRET'],
        message:
          'must be set to a secret of your own with NODE_ENV=production (the development value is public)',
      });
    }
    if (env.WEBHOOK_SECRET_KEYS === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEBHOOK_SECRET_KEYS'],
        message:
          'must be set with NODE_ENV=production (the development key is public): ID:KEY, KEY 32 random bytes in base64',
      });
    }
    if (env.SMS_TRANSPORT === 'console') {
      ctx.addIssue({
        code: 'custom',
        path: ['SMS_TRANSPORT'],
        message:
          'must not be console with NODE_ENV=production (nobody would receive the SMS): use twilio or file:PATH',
      });
    }
  });

/**
 * The one sentence that refuses the public development pickup secret outside development:
 * undefined when the settings may start a server. Checked once the settings are final
 * (after a caller's overrides), by `startServer`.
 */
export function developmentSecretProblem(config: ServerConfig): string | undefined {
  if (config.pickupCodeSecret !== DEV_PICKUP_SECRET || config.development) return undefined;
  return (
    'PICKUP_CODE_SECRET is not set, so pickup codes would be signed with the public development secret: ' +
    'set PICKUP_CODE_SECRET to a long random value of your own, or LOCKER_DEV=1 (`pnpm serve -- --dev`) to run for development'
  );
}

/** The settings, validated as a whole; a ConfigError lists every bad variable by name. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  // An empty variable counts as unset, as in a shell's `PORT= pnpm serve`.
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = EnvSchema.safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? 'environment');
      const value = given[name];
      const shown =
        value === undefined || /SECRET|TOKEN|PASSWORD|DATABASE_URL|KEY/.test(name)
          ? ''
          : ` (got "${value}")`;
      return `${name} ${issue.message}${shown}`;
    });
    throw new ConfigError(`bad setting: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  return {
    production: e.NODE_ENV === 'production',
    development: e.LOCKER_DEV === '1',
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    embeddedDataDir: e.EMBEDDED_PG_DIR,
    embeddedPort: e.EMBEDDED_PG_PORT,
    pickupCodeSecret: e.PICKUP_CODE_SECRET,
    smsTransport: e.SMS_TRANSPORT,
    twilio:
      e.TWILIO_ACCOUNT_SID && e.TWILIO_AUTH_TOKEN && e.TWILIO_FROM
        ? {
            accountSid: e.TWILIO_ACCOUNT_SID,
            authToken: e.TWILIO_AUTH_TOKEN,
            from: e.TWILIO_FROM,
            baseUrl: e.TWILIO_BASE_URL,
          }
        : undefined,
    logLevel: e.LOG_LEVEL,
    offlineAfterSeconds: e.OFFLINE_AFTER_SECONDS,
    sweepIntervalMs: e.SWEEP_INTERVAL_MS,
    heartbeatBatchMs: e.HEARTBEAT_BATCH_MS,
    dbPoolSize: e.DB_POOL_SIZE,
    verifierConcurrency: e.VERIFIER_CONCURRENCY,
    merchantRequestsPerMinute: e.MERCHANT_REQUESTS_PER_MINUTE,
    linkSigningKey: e.LINK_SIGNING_KEY,
    linkPingSeconds: e.LINK_PING_SECONDS,
    doorLeftOpenSeconds: e.DOOR_LEFT_OPEN_SECONDS,
    publicUrl: e.PUBLIC_URL,
    opsSessionIdleMinutes: e.OPS_SESSION_IDLE_MINUTES,
    opsSessionAbsoluteHours: e.OPS_SESSION_ABSOLUTE_HOURS,
    opsCookieSecure:
      e.OPS_COOKIE_SECURE === undefined
        ? e.NODE_ENV === 'production'
        : e.OPS_COOKIE_SECURE === 'true',
    opsAllowedOrigins: e.OPS_ALLOWED_ORIGINS,
    opsPublicUrl: (e.OPS_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    opsConsoleDir: path.resolve(e.OPS_CONSOLE_DIR ?? path.join(REPO_ROOT, 'console/dist')),
    opsWebhookUrl: e.OPS_WEBHOOK_URL,
    opsWebhookSecret: e.OPS_WEBHOOK_SECRET,
    operatorSecretKey: e.OPERATOR_SECRET_KEY,
    trustProxy: e.TRUST_PROXY === 'true',
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    webhookSecretKeys: e.WEBHOOK_SECRET_KEYS ?? DEVELOPMENT_KEYRING,
  };
}
