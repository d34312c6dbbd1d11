import { z } from 'zod';
import { text } from './common';

/** One failing field of a request body (400 `invalid_request`, 422 `validation_failed`). */
export const FieldErrorSchema = z.object({
  field: text(),
  code: text(),
  message: text(),
});
export type FieldError = z.infer<typeof FieldErrorSchema>;

/** RFC 9457 problem details as both interfaces send them. Clients branch on `code`. */
export const ProblemSchema = z.object({
  type: text(),
  title: text(),
  status: z.number().int(),
  code: text(),
  detail: text().optional(),
  correlation_id: text(),
  errors: z.array(FieldErrorSchema).optional(),
});
export type Problem = z.infer<typeof ProblemSchema>;

/** Every stable error code either interface can answer with. */
export const PROBLEM_CODES = [
  'invalid_json',
  'invalid_request',
  'bad_request',
  'payload_too_large',
  'request_timeout',
  'headers_too_large',
  'occurred_at_out_of_range',
  'unauthorized',
  'invalid_code',
  // Extension (docs/terminal-extensions.md): an enrolment code wrong, used or expired.
  'enrolment_refused',
  'courier_not_verified',
  'not_found',
  'cabinet_full',
  'validation_failed',
  'idempotency_conflict',
  // Issue 27: capacity.
  'station_full',
  'not_cancellable',
  'not_extendable',
  // Issue 27: a parcel that may not join the door named (its `reason` says why).
  'door_not_shareable',
  'rate_limited',
  'station_unresolved',
  'internal_error',
  // The operations interface (/ops/v1).
  'invalid_credentials',
  'second_factor_required',
  'forbidden',
  'step_up_required',
  'origin_refused',
  'conflict',
  // The live link's remote opens beyond the limits: a second admin must approve.
  'approval_required',
] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];
