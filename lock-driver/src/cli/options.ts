import { BAUD_RATES } from '../protocol/frame';
import { MAX_UNLOCK_DELAY_S, MAX_UNLOCK_TIME_MS } from '../boardSettings';

/** A mistake in how lockctl was called: one line, exit code 2. */
export class UsageError extends Error {}

export type Values = Record<string, string | boolean | string[] | undefined>;

/** Every option lockctl knows, for node:util parseArgs. */
export const OPTIONS = {
  port: { type: 'string' },
  baud: { type: 'string' },
  tcp: { type: 'string' },
  cabinet: { type: 'string' },
  boards: { type: 'string' },
  position: { type: 'string' },
  wait: { type: 'string' },
  board: { type: 'string' },
  set: { type: 'string' },
  interval: { type: 'string' },
  columns: { type: 'string' },
  'auto-close': { type: 'string' },
  'drop-after-unlock': { type: 'string' },
  'dead-board': { type: 'string', multiple: true },
  jam: { type: 'string', multiple: true },
  propped: { type: 'string', multiple: true },
  item: { type: 'string', multiple: true },
  'unlock-delay': { type: 'string' },
  'power-cut-after-pulse': { type: 'string' },
  'byte-gap': { type: 'string' },
  'board-baud': { type: 'string' },
  'doors-wired': { type: 'string' },
  force: { type: 'boolean' },
  noise: { type: 'boolean' },
  'state-file': { type: 'string' },
  json: { type: 'boolean' },
  verbose: { type: 'boolean' },
  'inverted-hook': { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

const CONNECTION = ['port', 'baud', 'tcp'];
const CABINET = ['cabinet', 'boards', 'inverted-hook'];
const COMMON = ['json', 'verbose', 'help'];

/** Which options each command takes: anything else is a mistake worth saying. */
export const COMMAND_OPTIONS: Record<string, string[]> = {
  ports: [],
  probe: ['port', 'tcp'],
  scan: CONNECTION,
  status: [...CONNECTION, ...CABINET],
  open: [...CONNECTION, ...CABINET, 'position', 'wait'],
  cycle: [...CONNECTION, ...CABINET, 'wait'],
  'unlock-time': [...CONNECTION, 'board', 'set', 'force'],
  'unlock-delay': [...CONNECTION, 'board', 'set'],
  baud: [...CONNECTION, 'board', 'set'],
  firmware: [...CONNECTION, ...CABINET, 'board'],
  monitor: [...CONNECTION, ...CABINET, 'interval'],
  map: [...CONNECTION, 'cabinet', 'boards', 'inverted-hook', 'columns'],
  simulate: [
    'boards',
    'tcp',
    'baud',
    'inverted-hook',
    'auto-close',
    'drop-after-unlock',
    'dead-board',
    'jam',
    'propped',
    'item',
    'unlock-delay',
    'power-cut-after-pulse',
    'byte-gap',
    'board-baud',
    'doors-wired',
    'noise',
    'state-file',
  ],
};

export function checkOptionsFor(command: string, values: Values): void {
  const allowed = new Set([...COMMAND_OPTIONS[command]!, ...COMMON]);
  for (const [name, value] of Object.entries(values))
    if (value !== undefined && !allowed.has(name))
      throw new UsageError(`lockctl ${command} does not take --${name}`);
}

export const str = (v: Values, name: string): string | undefined => {
  const value = v[name];
  return typeof value === 'string' ? value : undefined;
};

export const list = (v: Values, name: string): string[] => {
  const value = v[name];
  return Array.isArray(value) ? value : [];
};

/** A whole number option within [min, max]; `fallback` when absent (required if none). */
export function int(
  v: Values | string | undefined,
  name: string,
  range: [number, number],
  fallback?: number,
): number {
  const raw = typeof v === 'object' ? str(v, name) : v;
  if (raw === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required`);
    return fallback;
  }
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < range[0] || n > range[1])
    throw new UsageError(
      `--${name} must be a whole number from ${range[0]} to ${range[1]}, not "${raw}"`,
    );
  return n;
}

export const RANGES = {
  boards: [1, 10] as [number, number],
  board: [0, 9] as [number, number],
  position: [1, 160] as [number, number],
  waitSeconds: [1, 3600] as [number, number],
  intervalMs: [20, 60_000] as [number, number],
  unlockMs: [0, MAX_UNLOCK_TIME_MS] as [number, number],
  unlockDelayS: [0, MAX_UNLOCK_DELAY_S] as [number, number],
};

export function baud(v: Values, fallback = 19200, name = 'baud'): number {
  const raw = str(v, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!(BAUD_RATES as number[]).includes(n))
    throw new UsageError(
      `--${name} must be one the board can be set to: ${BAUD_RATES.join(', ')}, not "${raw}"`,
    );
  return n;
}

/** `--tcp HOST:PORT` (or just PORT, meaning this machine). */
export function tcpAddress(raw: string): { host: string; port: number } {
  const at = raw.lastIndexOf(':');
  const host = at > 0 ? raw.slice(0, at) : '127.0.0.1';
  const port = Number(at >= 0 ? raw.slice(at + 1) : raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new UsageError(`--tcp must be HOST:PORT with a port from 1 to 65535, not "${raw}"`);
  return { host, port };
}

/** Every number option checked up front: a mistake is said before any port is opened. */
export function checkValues(command: string, v: Values): void {
  const ranges: Record<string, [number, number]> = {
    boards: RANGES.boards,
    board: RANGES.board,
    position: RANGES.position,
    wait: RANGES.waitSeconds,
    interval: RANGES.intervalMs,
    columns: [1, 40],
    ...(command === 'unlock-time' ? { set: RANGES.unlockMs } : {}),
    ...(command === 'unlock-delay' ? { set: RANGES.unlockDelayS } : {}),
  };
  for (const [name, range] of Object.entries(ranges))
    if (v[name] !== undefined) int(v, name, range);
  if (command === 'baud' && v.set !== undefined) baud(v, 19200, 'set');
  if (command !== 'simulate') {
    if (v.baud !== undefined) baud(v);
    const tcp = str(v, 'tcp');
    if (tcp !== undefined) tcpAddress(tcp);
  }
}
