import { ProblemSchema, type Problem } from '@locker/shared';
import type { z } from 'zod';

/** The operations interface, on the console's own origin. */
export const API = '/ops/v1';

/** An answer that is not a success: the server's problem, or what went wrong on the way. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly problem: Problem | undefined,
  ) {
    super(problem?.detail ?? problem?.title ?? code);
  }
}

/** Fired when the server says the session is gone: the app goes back to sign-in. */
export const SIGNED_OUT_EVENT = 'console:signed-out';

type Method = 'GET' | 'POST' | 'DELETE';

/**
 * One call to /ops/v1. The session cookie goes by itself (same origin, HttpOnly); the
 * browser adds `Origin` to unsafe methods, which the server requires. A 2xx answer is
 * parsed with the shared schema when one is given.
 */
export async function call<S extends z.ZodType>(
  method: Method,
  path: string,
  options: { body?: unknown; schema?: S; signal?: AbortSignal } = {},
): Promise<z.infer<S>> {
  let response: Response;
  try {
    response = await fetch(API + path, {
      method,
      credentials: 'same-origin',
      headers: {
        accept: 'application/json',
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'network', undefined);
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const problem = ProblemSchema.safeParse(json);
    const code = problem.success ? problem.data.code : `http_${response.status}`;
    if (response.status === 401 && code === 'unauthorized' && path !== '/session') {
      window.dispatchEvent(new CustomEvent(SIGNED_OUT_EVENT));
    }
    throw new ApiError(response.status, code, problem.success ? problem.data : undefined);
  }
  if (!options.schema) return json as z.infer<S>;
  return options.schema.parse(json);
}

export const get = <S extends z.ZodType>(path: string, schema: S, signal?: AbortSignal) =>
  call('GET', path, { schema, ...(signal ? { signal } : {}) });
export const post = <S extends z.ZodType>(path: string, body: unknown = {}, schema?: S) =>
  call('POST', path, { body, ...(schema ? { schema } : {}) });

/** A query string from the set values only. */
export function query(params: Record<string, string | number | boolean | undefined | null>) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
