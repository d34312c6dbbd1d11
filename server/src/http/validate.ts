import type { FieldError, ProblemCode } from '@locker/shared';
import type { z } from 'zod';
import { ProblemError } from './problem';

/** One entry per failing field; an unknown key is an entry of its own. */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue): FieldError[] => {
    const at = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: at ? `${at}.${key}` : key,
        code: 'unrecognized_key',
        message: `Unknown field "${key}"; remove it.`,
      }));
    }
    return [{ field: at || '(body)', code: issue.code, message: issue.message }];
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
  const errors = fieldErrors(result.error);
  const fields = [...new Set(errors.map((e) => e.field))].join(', ');
  throw new ProblemError(code, `Invalid field(s): ${fields}.`, errors);
}
