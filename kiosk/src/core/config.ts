import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readCredentials } from './credentials';
import { PIN_HASH_PATTERN } from './technician';

const LockSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('serial'),
    path: z.string().min(1),
    baudRate: z.number().int().default(19200),
    /** Without a cabinet file: boards 0 to boards - 1, default wiring. */
    boards: z.number().int().min(1).max(10).optional(),
  }),
  z.strictObject({
    kind: z.literal('tcp'),
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535),
    /** Without a cabinet file: boards 0 to boards - 1, default wiring. */
    boards: z.number().int().min(1).max(10).optional(),
  }),
  /** Development and demos: a simulated cabinet in process. */
  z.strictObject({
    kind: z.literal('simulator'),
    /** Without a cabinet file: boards 0 to boards - 1. */
    boards: z.number().int().min(1).max(10).optional(),
    /** Doors shut by themselves this long after opening (demos without a real cabinet). */
    autoCloseMs: z.number().int().positive().optional(),
    /** With autoCloseMs: a shut door gains the parcel it lacked, or loses the one it had. */
    demo: z.boolean().default(false),
    /** Where the doors' contents are kept across restarts (relative to this file). */
    stateFile: z.string().min(1).optional(),
    /**
     * Faults of the simulated boards from the start, for trying the kiosk as a technician
     * would (the others are switched on while it runs): hook polarity the other way from
     * the cabinet file, a delayed unlock, another firmware.
     */
    faults: z
      .strictObject({
        invertedHook: z.boolean().optional(),
        unlockDelayS: z.number().int().min(0).max(250).optional(),
        version: z
          .tuple([z.number().int().min(0).max(255), z.number().int().min(0).max(255)])
          .optional(),
      })
      .optional(),
  }),
]);

export const KioskConfigSchema = z
  .strictObject({
    serverUrl: z.url({ protocol: /^https?$/ }),
    /**
     * Kept in this file, which must then not be readable by other users (0600). A kiosk
     * enrolled with a code keeps its token in `credentialsFile` instead.
     */
    deviceToken: z.union([z.string().min(16), z.literal('')]).default(''),
    /**
     * Where the enrolment stores the device token and the rotation replaces it (0600, the
     * kiosk's user only), relative to this file. Takes precedence over `deviceToken`.
     */
    credentialsFile: z.string().min(1).optional(),
    lock: LockSchema,
    /**
     * The cabinet file (boards, wiring, hook polarity, layout; `lockctl map` writes it),
     * relative to this file. Without it the lock's `boards` gives a default cabinet.
     */
    cabinetFile: z.string().min(1).optional(),
    /** Where the offline queue (SQLite) lives. */
    dataDir: z.string().min(1),
    heartbeatIntervalSeconds: z.number().positive().default(60),
    cabinetPollSeconds: z.number().positive().default(15),
    /** Every door is read this often, sessions or not: a door opening unseen is noticed. */
    doorWatchIntervalMs: z.number().int().min(50).max(10_000).default(500),
    /** How long a door may stay open before it counts as left open. */
    doorCloseTimeoutSeconds: z.number().positive().default(120),
    appVersion: z.string().max(64).default('kiosk-1.0.0'),
    /**
     * Signed, staged updates (docs/terminal-extensions.md, "Kiosk updates"): where the
     * A/B slots live, the release key's public half (PEM), how often to ask, how long a
     * new release has to report healthy. Without it the kiosk never updates itself.
     */
    updates: z
      .strictObject({
        dir: z.string().min(1),
        publicKeyFile: z.string().min(1),
        checkSeconds: z.number().positive().default(300),
        healthSeconds: z.number().positive().default(180),
        /** Nobody touched the screen this long: an update may restart the kiosk. */
        idleSeconds: z.number().min(0).default(60),
      })
      .optional(),
    /** The service menu's PIN, as `pnpm --filter @locker/kiosk technician-pin` hashes it; never the PIN. */
    /**
     * The live link (docs/terminal-extensions.md): one WebSocket to the service for
     * commands, door states and the "cabinet changed" hint. Off: heartbeats and polls only.
     */
    link: z.boolean().default(true),
    /**
     * The service's Ed25519 public key (base64 of 32 bytes) that every command on the link
     * must be signed with; without it the kiosk refuses every command.
     */
    linkPublicKey: z
      .string()
      .regex(/^[A-Za-z0-9+/]{43}=$/, 'the base64 of a 32-byte Ed25519 public key')
      .optional(),
    /** The idle grid poll while the link is up: it says when the grid changed. */
    cabinetPollSecondsWithLink: z.number().positive().default(300),
    technicianPinHash: z
      .string()
      .regex(PIN_HASH_PATTERN, 'a hash made by `technician-pin`, not the PIN itself')
      .optional(),
  })
  .superRefine((config, ctx) => {
    if (config.deviceToken === '' && config.credentialsFile === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['credentialsFile'],
        message: 'give credentialsFile (the enrolment writes it) or deviceToken',
      });
    if (config.cabinetFile === undefined && config.lock.boards === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['cabinetFile'],
        message:
          'give cabinetFile (lockctl map writes one) or lock.boards (boards 0 to N-1, default wiring)',
      });
  });
/** `deviceToken` is '' only before `loadKioskConfig` found the enrolled one. */
export type KioskConfig = z.infer<typeof KioskConfigSchema>;

export class ConfigError extends Error {}

/**
 * Reads and checks the kiosk's one configuration file. Every mistake is named with its
 * field, and a device token readable by other users is refused outright.
 */
export function loadKioskConfig(
  file: string,
  /**
   * The hosts start a kiosk not enrolled yet (deviceToken ''): out of service, its
   * service menu takes the enrolment code. Everything else needs a token.
   */
  options: { unenrolled?: 'allow' } = {},
): KioskConfig {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    throw new ConfigError(`configuration file ${file} not found`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  const holdsToken = typeof raw === 'object' && raw !== null && 'deviceToken' in raw;
  if (holdsToken && (stat.mode & 0o077) !== 0) {
    throw new ConfigError(
      `${file} holds the device token and must be readable by its owner only: chmod 600 ${file}`,
    );
  }
  const parsed = KioskConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((i) => `  ${i.path.join('.') || '(file)'}: ${i.message}`)
      .join('\n');
    throw new ConfigError(`${file} has mistakes:\n${problems}`);
  }
  const beside = (p: string) => path.resolve(path.dirname(file), p);
  const lock = parsed.data.lock;
  const credentialsFile =
    parsed.data.credentialsFile === undefined ? undefined : beside(parsed.data.credentialsFile);
  let deviceToken = parsed.data.deviceToken;
  if (credentialsFile !== undefined) {
    let stored;
    try {
      stored = readCredentials(credentialsFile);
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
    deviceToken = stored?.token ?? deviceToken;
  }
  if (deviceToken === '' && options.unenrolled !== 'allow')
    throw new ConfigError(
      `this kiosk is not enrolled yet (no ${credentialsFile}): enrol it with the operator's code, kiosk-enrol ${file} CODE`,
    );
  return {
    ...parsed.data,
    deviceToken,
    ...(credentialsFile === undefined ? {} : { credentialsFile }),
    dataDir: beside(parsed.data.dataDir),
    ...(parsed.data.updates === undefined
      ? {}
      : {
          updates: {
            ...parsed.data.updates,
            dir: beside(parsed.data.updates.dir),
            publicKeyFile: beside(parsed.data.updates.publicKeyFile),
          },
        }),
    // The launcher says which release runs (kiosk-launch): that is the version reported.
    appVersion: process.env.KIOSK_APP_VERSION ?? parsed.data.appVersion,
    ...(parsed.data.cabinetFile === undefined
      ? {}
      : { cabinetFile: beside(parsed.data.cabinetFile) }),
    lock:
      lock.kind === 'simulator' && lock.stateFile !== undefined
        ? { ...lock, stateFile: beside(lock.stateFile) }
        : lock,
  };
}

/**
 * Writes a configuration file as an installer would: readable by its owner only, since it
 * holds the device token. `dataDir` is taken relative to the file.
 */
export function writeKioskConfig(file: string, config: z.input<typeof KioskConfigSchema>): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(config, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
}
