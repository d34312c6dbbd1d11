import { ApiError, call } from './api';

// The live link's operations (issue 23, link side): remote open, configuration refresh,
// log bundles. A server without the link answers 404 to them; the station page says so
// instead of pretending.

export type CommandOutcome =
  | 'opened'
  | 'did_not_open'
  | 'unknown'
  | 'already_open'
  | 'done'
  | 'failed'
  | 'expired'
  | 'refused';

/** Where a command stands: sent, received by the kiosk, or finished with an outcome. */
export interface CommandState {
  id: string | null;
  stage: 'sent' | 'received' | 'finished';
  outcome: CommandOutcome | null;
  detail: Record<string, unknown>;
}

const OUTCOMES: CommandOutcome[] = [
  'opened',
  'did_not_open',
  'unknown',
  'already_open',
  'done',
  'failed',
  'expired',
  'refused',
];

/** A command's answer, read loosely: its id, whether delivered, its outcome once known. */
export function readCommand(body: unknown): CommandState {
  const b = (body ?? {}) as Record<string, unknown>;
  const inner = (typeof b.command === 'object' && b.command !== null ? b.command : b) as Record<
    string,
    unknown
  >;
  const outcome = OUTCOMES.find((o) => o === inner.outcome) ?? null;
  const id =
    typeof inner.id === 'string'
      ? inner.id
      : typeof b.command_id === 'string'
        ? b.command_id
        : null;
  const status = typeof inner.status === 'string' ? inner.status : '';
  const delivered = inner.delivered_at ?? inner.received_at;
  return {
    id,
    stage: outcome
      ? 'finished'
      : delivered || status === 'delivered' || status === 'received'
        ? 'received'
        : 'sent',
    outcome: outcome ?? (status === 'expired' ? 'expired' : null),
    detail: (typeof inner.detail === 'object' && inner.detail !== null
      ? inner.detail
      : {}) as Record<string, unknown>,
  };
}

/**
 * Whether the server has no such operation (a 404 without a detail: no route), rather
 * than no such station, door or command (a 404 that names it).
 */
export const isMissing = (error: unknown): boolean =>
  error instanceof ApiError && error.status === 404 && !error.problem?.detail;

const station = (code: string) => `/stations/${encodeURIComponent(code)}`;

export function openDoor(code: string, door: number, reason: string) {
  return call('POST', `${station(code)}/doors/${door}/open`, { body: { reason } });
}

export function commandState(id: string) {
  return call('GET', `/commands/${encodeURIComponent(id)}`);
}

export function refreshConfig(code: string) {
  return call('POST', `${station(code)}/refresh-config`, { body: {} });
}

export function fetchLogs(code: string, minutes: number) {
  return call('POST', `${station(code)}/logs`, { body: { minutes } });
}
