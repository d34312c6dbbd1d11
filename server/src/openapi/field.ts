import { CredentialsResponseSchema, EnrolRequestSchema, EnrolResponseSchema } from '@locker/shared';
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
    '/terminal/v1/credentials': {
      post: {
        tags: ['terminal'],
        summary:
          'Extension: whether the device token is due for replacement; a new one is offered at 25 days and replaces the old on its first use',
        responses: {
          '200': json(
            CredentialsResponseSchema,
            'A new token (once), or null while the current one is young',
          ),
          ...problems(401),
        },
      },
    },
  } as ZodOpenApiPathsObject;
}
