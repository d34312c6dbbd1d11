import { SizeSchema } from '@locker/shared';
import type { Refusal } from '../bridge/api';
import type { Failure } from './client';

/**
 * What the screen says for a failed call. A wrong code is only ever a 401 `invalid_code`:
 * rate limits and service trouble (5xx, network, an offline mark, an unusable answer)
 * never read as one. Clients branch on `code`, and a full cabinet names the size from the
 * problem's `parcel_size` member (docs/terminal-extensions.md), never from `detail`.
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
    case 'cabinet_full': {
      const size = SizeSchema.safeParse(failure.problem?.parcel_size);
      return { kind: 'cabinet_full', size: size.success ? size.data : null };
    }
    default:
      return { kind: 'unavailable' };
  }
}
