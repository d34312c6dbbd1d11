import { ProblemSchema } from '@locker/shared';
import type { z } from 'zod';
import type {
  ZodOpenApiOperationObject,
  ZodOpenApiRequestBodyObject,
  ZodOpenApiResponseObject,
  ZodOpenApiResponsesObject,
} from 'zod-openapi';

export const Problem = ProblemSchema.meta({ id: 'Problem' });

/** What each problem status means, by interface: the `code`s it carries. */
const TERMINAL_PROBLEMS: Record<number, string> = {
  400: '`invalid_json` (the body is not JSON), `invalid_request` (a field breaks the schema; `errors` names each), `occurred_at_out_of_range`',
  401: '`unauthorized` (no, unknown, revoked or disabled device token), or `invalid_code` on /pickup',
  403: '`courier_not_verified`',
  404: '`not_found`',
  408: '`request_timeout`: the body did not arrive in time (the connection is closed)',
  409: '`cabinet_full`: no free door fits; `detail` names the size',
  413: '`payload_too_large`: the body is over 64 kB (the connection is closed)',
  429: '`rate_limited`; `Retry-After` says when to try again',
  431: '`headers_too_large`',
  500: '`internal_error`: never expected; the correlation id finds it in the logs',
};
const MERCHANT_PROBLEMS: Record<number, string> = {
  ...TERMINAL_PROBLEMS,
  400: '`invalid_json`: the body is not JSON',
  401: '`unauthorized`: no, unknown or revoked API key',
  404: '`not_found` (another organization’s is not found either)',
  409: '`idempotency_conflict`: the key was used with another body in the last 24 hours',
  422: '`validation_failed`: `errors` names each failing field (`invalid_characters` for U+0000 or an unpaired surrogate)',
};

const OPS_PROBLEMS: Record<number, string> = {
  ...TERMINAL_PROBLEMS,
  400: '`invalid_json` (the body is not JSON), or `invalid_request` when signing in (a field breaks the schema; `errors` names each)',
  401: '`unauthorized` (no live session), or `second_factor_required` (half signed in)',
  403: '`forbidden`: a role or station outside the operator’s scope (audited), or an unsafe request from another Origin',
  409: 'the change conflicts with the current state (`code` says which)',
  422: '`validation_failed`: `errors` names each failing field',
};

export type Interface = 'terminal' | 'merchant' | 'ops';

/**
 * The problem answers of an operation: the ones it names, and those every operation of
 * its kind can give (401 and 429 on the merchant side; 400, 408 and 413 where a body is
 * read; 431 and 500 everywhere).
 */
export function problems(
  kind: Interface,
  statuses: number[],
  readsBody: boolean,
): ZodOpenApiResponsesObject {
  const all = new Set([
    ...statuses,
    401,
    ...(kind === 'merchant' ? [429] : []),
    ...(readsBody ? [400, 408, 413] : []),
    431,
    500,
  ]);
  const words =
    kind === 'terminal'
      ? TERMINAL_PROBLEMS
      : kind === 'merchant'
        ? MERCHANT_PROBLEMS
        : OPS_PROBLEMS;
  return Object.fromEntries(
    [...all]
      .sort((a, b) => a - b)
      .map((status) => [
        String(status),
        {
          description: `Problem details: ${words[status] ?? 'see `code`'}`,
          content: { 'application/problem+json': { schema: Problem } },
        },
      ]),
  );
}

/** A JSON answer with an example of it. */
export function json(schema: z.ZodType, description: string, example: unknown) {
  return {
    description,
    content: { 'application/json': { schema, example } },
  } satisfies ZodOpenApiResponseObject;
}

/** A JSON request body with an example of it. */
export function body(schema: z.ZodType, example: unknown, required = true) {
  return {
    required,
    content: { 'application/json': { schema, example } },
  } satisfies ZodOpenApiRequestBodyObject;
}

export type Operation = ZodOpenApiOperationObject;
