import { isTextRuleIssue, type FieldError, type ProblemCode } from '@locker/shared';
import type { z } from 'zod';
import { ProblemError } from './problem';

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * One entry per failing field. A missing field is `required` rather than zod's
 * `invalid_type`, an unknown key is an entry of its own, and refinements name their own
 * code (e.g. `invalid_phone`).
 */
export function fieldErrors(error: z.ZodError, input: unknown): FieldError[] {
  return error.issues.flatMap((issue): FieldError[] => {
    const at = issue.path.map(String).join('.');
    const field = at || '(body)';
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: at ? `${at}.${key}` : key,
        code: 'unrecognized_key',
        message: `unknown field "${key}"; remove it`,
      }));
    }
    if (
      issue.code === 'invalid_type' &&
      issue.path.length > 0 &&
      valueAt(input, issue.path) === undefined
    ) {
      return [{ field, code: 'required', message: 'is required' }];
    }
    if (isTextRuleIssue(issue))
      return [{ field, code: 'invalid_characters', message: issue.message }];
    const custom =
      issue.code === 'custom' ? (issue.params as { code?: string } | undefined)?.code : undefined;
    return [{ field, code: custom ?? issue.code, message: issue.message }];
  });
}

/** Parses `input` with `schema` or throws the interface's validation problem. */
export function validate<S extends z.ZodType>(
  schema: S,
  input: unknown,
  code: Extract<ProblemCode, 'invalid_request' | 'validation_failed'> = 'invalid_request',
): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors = fieldErrors(result.error, input);
  const fields = [...new Set(errors.map((e) => e.field))].join(', ');
  throw new ProblemError(code, `Invalid field(s): ${fields}.`, errors);
}
