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

/**
 * Where a command stands, as the console shows it: sent (issued, waiting for the kiosk),
 * received (delivered to the kiosk over the link), finished with the kiosk's outcome.
 */
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

/**
 * A command as the service answers it (`LinkCommand`: status pending → sent → done, or
 * expired; its outcome once done), read loosely.
 */
export function readCommand(body: unknown): CommandState {
  const b = (body ?? {}) as Record<string, unknown>;
  const status = typeof b.status === 'string' ? b.status : '';
  const outcome = OUTCOMES.find((o) => o === b.outcome) ?? null;
  const finished = status === 'done' || status === 'expired' || outcome !== null;
  return {
    id: typeof b.id === 'string' ? b.id : null,
    stage: finished ? 'finished' : status === 'sent' ? 'received' : 'sent',
    outcome: status === 'expired' ? 'expired' : (outcome ?? (finished ? 'unknown' : null)),
    detail:
      typeof b.outcome_detail === 'object' && b.outcome_detail !== null
        ? (b.outcome_detail as Record<string, unknown>)
        : {},
  };
}

/**
 * Whether the server has no such operation (a 404 without a detail: no route), rather
 * than no such station, door or command (a 404 that names it).
 */
export const isMissing = (error: unknown): boolean =>
  error instanceof ApiError && error.status === 404 && !error.problem?.detail;

/** A remote open past the rate a second administrator must approve. */
export const needsApproval = (error: unknown): boolean =>
  error instanceof ApiError && error.code === 'approval_required';

const station = (code: string) => `/stations/${encodeURIComponent(code)}`;

/** POST …/doors/{door}/open: the outcome within a few seconds (200), else 202 to poll. */
export function openDoor(code: string, door: number, reason: string) {
  return call('POST', `${station(code)}/doors/${door}/open`, {
    body: { reason, wait_seconds: 5 },
  });
}

export function commandState(id: string) {
  return call('GET', `/link/commands/${encodeURIComponent(id)}`);
}

export function refreshConfig(code: string) {
  return call('POST', `${station(code)}/link/refresh-config`, { body: { wait_seconds: 5 } });
}

export function fetchLogs(code: string, minutes: number) {
  return call('POST', `${station(code)}/link/upload-logs`, {
    body: { minutes, wait_seconds: 20 },
  });
}

/** Where the browser downloads a command's uploaded logs. */
export const logsUrl = (id: string) => `/ops/v1/link/commands/${encodeURIComponent(id)}/logs`;
