import type { FieldError, ProblemCode } from '@locker/shared';

const TYPE_BASE = 'https://parcel-locker.dev/problems/';

/** Fixed status and title per code: `title` never varies with the request. */
const CATALOGUE: Record<ProblemCode, { status: number; title: string }> = {
  invalid_json: { status: 400, title: 'Request body is not valid JSON' },
  invalid_request: { status: 400, title: 'Request body does not match the schema' },
  bad_request: { status: 400, title: 'Malformed HTTP request' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  request_timeout: { status: 408, title: 'Request not received in time' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  occurred_at_out_of_range: {
    status: 400,
    title: 'occurred_at is in the future or more than 7 days in the past',
  },
  unauthorized: { status: 401, title: 'Unauthorized' },
  invalid_code: { status: 401, title: 'Pickup code not accepted' },
  enrolment_refused: { status: 401, title: 'Enrolment code not accepted' },
  courier_not_verified: { status: 403, title: 'Courier not verified' },
  not_found: { status: 404, title: 'Not found' },
  cabinet_full: { status: 409, title: 'No free door large enough' },
  validation_failed: { status: 422, title: 'Validation failed' },
  idempotency_conflict: {
    status: 409,
    title: 'Idempotency-Key was already used with a different request',
  },
  station_full: { status: 409, title: 'No door free at this station for the parcel' },
  not_cancellable: { status: 409, title: 'The shipment can no longer be cancelled' },
  not_extendable: { status: 409, title: 'The storage of this parcel cannot be extended' },
  door_not_shareable: { status: 409, title: 'The parcel may not join that door' },
  rate_limited: { status: 429, title: 'Too many requests' },
  station_unresolved: { status: 500, title: "The terminal's station could not be resolved" },
  internal_error: { status: 500, title: 'Internal error' },
  invalid_credentials: { status: 401, title: 'E-mail, password or code not accepted' },
  second_factor_required: { status: 401, title: 'Second factor required to finish signing in' },
  forbidden: { status: 403, title: 'Not allowed for your role' },
  step_up_required: { status: 403, title: 'Enter your second factor again first' },
  origin_refused: { status: 403, title: 'Request from another origin refused' },
  conflict: { status: 409, title: 'Conflicts with the current state' },
  approval_required: {
    status: 429,
    title: 'Too many remote opens: a second administrator must approve this one',
  },
};

export function problemType(code: ProblemCode): string {
  return TYPE_BASE + code;
}

/** An answer in problem-details form; thrown from anywhere, rendered by one middleware. */
export class ProblemError extends Error {
  readonly status: number;
  constructor(
    readonly code: ProblemCode,
    readonly detail?: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? CATALOGUE[code].title);
    this.status = CATALOGUE[code].status;
  }

  body(correlationId: string): Record<string, unknown> {
    return {
      type: problemType(this.code),
      title: CATALOGUE[this.code].title,
      status: this.status,
      code: this.code,
      ...(this.detail === undefined ? {} : { detail: this.detail }),
      correlation_id: correlationId,
      ...(this.errors === undefined ? {} : { errors: this.errors }),
    };
  }
}

export const problem = {
  unauthorized: () => new ProblemError('unauthorized'),
  notFound: (detail?: string) => new ProblemError('not_found', detail),
  forbidden: (detail?: string) => new ProblemError('forbidden', detail),
  conflict: (detail?: string) => new ProblemError('conflict', detail),
  rateLimited: (retryAfterSeconds: number) =>
    new ProblemError('rate_limited', `Try again in ${retryAfterSeconds} s.`, undefined, {
      'Retry-After': String(retryAfterSeconds),
    }),
};
