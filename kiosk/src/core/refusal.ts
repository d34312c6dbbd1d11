import type { Refusal } from '../bridge/api';
import type { Failure } from './client';

/**
 * What the screen says for a failed call. A wrong code is only ever a 401 `invalid_code`:
 * rate limits and service trouble (5xx, network, an offline mark) never read as one.
 */
export function refusalOf(failure: Failure): Refusal {
  switch (failure.code ?? 'none') {
    case 'invalid_code':
      return { kind: 'invalid_code' };
    case 'rate_limited':
      return { kind: 'rate_limited', retryAfterSeconds: failure.retryAfterSeconds ?? 60 };
    case 'courier_not_verified':
      return { kind: 'courier_not_verified' };
    case 'not_found':
      return { kind: 'not_found' };
    case 'cabinet_full':
      return {
        kind: 'cabinet_full',
        size: /\b(XL|S|M|L)\b/.exec(failure.detail ?? '')?.[1] ?? null,
      };
    default:
      return { kind: 'unavailable' };
  }
}
