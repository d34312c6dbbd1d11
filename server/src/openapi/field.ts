import { EnrolRequestSchema, EnrolResponseSchema } from '@locker/shared';
import type { ZodOpenApiResponsesObject, ZodOpenApiPathsObject } from 'zod-openapi';
import type { z } from 'zod';

type Json = (schema: z.ZodType, description: string) => object;
type Problems = (...statuses: number[]) => ZodOpenApiResponsesObject;

/** The field extensions of the terminal interface (docs/terminal-extensions.md). */
export function fieldPaths(json: Json, problems: Problems): ZodOpenApiPathsObject {
  return {
    '/terminal/v1/enrol': {
      post: {
        tags: ['terminal'],
        summary:
          'Extension: a new kiosk exchanges its one-time enrolment code for its device token (no token; limited per address)',
        security: [],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: EnrolRequestSchema } },
        },
        responses: {
          '200': json(EnrolResponseSchema, 'Enrolled: the token, once, and the station'),
          ...problems(400, 401, 429),
        },
      },
    },
  } as ZodOpenApiPathsObject;
}
