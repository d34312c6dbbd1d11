import { createRequire } from 'node:module';
import pino from 'pino';
import type PinoPretty from 'pino-pretty';

export type Logger = pino.Logger;

export interface LoggerOptions {
  /** Lines for a person instead of JSON; default: stdout is a terminal and not production. */
  pretty?: boolean;
}

// ANSI styles for the lines a person must not miss.
const ALERT = '\u001b[1;41;97m';
const RESET = '\u001b[0m';

/** A kiosk's routine polling, answered fine: hidden from the human view, kept in JSON. */
function routine(log: Record<string, unknown>): boolean {
  return (
    log.msg === 'request' &&
    typeof log.status === 'number' &&
    log.status < 400 &&
    /^\/terminal\/v1\/(heartbeat|cabinet)$/.test(String(log.path))
  );
}

/**
 * pino-pretty is a development dependency: a production install (`pnpm install --prod`,
 * `pnpm deploy --prod`) leaves it out and logs JSON lines. Loaded only when lines for a
 * person are asked for; undefined when it is not installed.
 */
function loadPrettyFactory(): typeof PinoPretty.prettyFactory | undefined {
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = require.resolve('pino-pretty');
  } catch {
    return undefined;
  }
  return (require(entry) as typeof PinoPretty).prettyFactory;
}

function humanStream(prettyFactory: typeof PinoPretty.prettyFactory): {
  write(line: string): void;
} {
  const colors = process.stdout.isTTY === true;
  const prettify = prettyFactory({
    colorize: colors,
    translateTime: 'HH:MM:ss',
    ignore: 'pid,hostname,service,correlation_id,method,path,status,ms,alert',
    singleLine: true,
    messageFormat: (log, messageKey) => {
      const message = typeof log[messageKey] === 'string' ? log[messageKey] : '';
      if (typeof log.alert === 'string') {
        const label = ` ALERT ${log.alert} `;
        return `${colors ? ALERT + label + RESET : `[${label.trim()}]`} ${message}`;
      }
      if (message === 'request')
        return `${String(log.method)} ${String(log.path)} → ${String(log.status)} (${String(log.ms)} ms)`;
      return message;
    },
  });
  return {
    write(line: string) {
      const log = JSON.parse(line) as Record<string, unknown>;
      if (!routine(log)) process.stdout.write(prettify(log));
    },
  };
}

export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const pretty =
    options.pretty ?? (process.stdout.isTTY === true && process.env.NODE_ENV !== 'production');
  const prettyFactory = pretty ? loadPrettyFactory() : undefined;
  if (!prettyFactory) {
    const logger = pino({ level, base: { service: 'parcel-locker' } });
    if (pretty) logger.warn('pino-pretty (a development dependency) is not installed: JSON lines');
    return logger;
  }
  return pino({ level, base: { service: 'parcel-locker' } }, humanStream(prettyFactory));
}
