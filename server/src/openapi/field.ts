import {
  CredentialsResponseSchema,
  EnrolRequestSchema,
  EnrolResponseSchema,
  OkResponseSchema,
  RolloutRequestSchema,
  RolloutSchema,
  UpdateAssignmentSchema,
  UpdateReportRequestSchema,
} from '@locker/shared';
import { z as zod } from 'zod';
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
    '/terminal/v1/update': {
      get: {
        tags: ['terminal'],
        summary:
          "Extension: the kiosk release this terminal's ring should run (signed manifest), or null",
        responses: {
          '200': json(UpdateAssignmentSchema, 'The release assigned, or null'),
          ...problems(401),
        },
      },
    },
    '/terminal/v1/update/bundle/{version}': {
      get: {
        tags: ['terminal'],
        summary:
          'Extension: the bytes of a release bundle (tar.gz); the kiosk checks size, SHA-256 and the signature before installing',
        requestParams: { path: zod.object({ version: zod.string() }) },
        responses: {
          '200': {
            description: 'The bundle',
            content: { 'application/gzip': { schema: zod.string().meta({ format: 'binary' }) } },
          },
          ...problems(401, 404),
        },
      },
    },
    '/terminal/v1/update/report': {
      post: {
        tags: ['terminal'],
        summary:
          'Extension: what became of a release on this kiosk: running (healthy), rolled_back, refused (bad signature or digest)',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: UpdateReportRequestSchema } },
        },
        responses: {
          '200': json(OkResponseSchema, 'Recorded'),
          ...problems(400, 401),
        },
      },
    },
    '/ops/v1/kiosk-rollout': {
      get: {
        tags: ['operations'],
        security: [{ operatorSession: [] }],
        summary: 'The kiosk release rolled out, its rings, and what every kiosk runs and reported',
        responses: { '200': json(RolloutSchema, 'The rollout'), ...problems(401, 403, 404) },
      },
      put: {
        tags: ['operations'],
        security: [{ operatorSession: [] }],
        summary:
          'Rolls a release out: pilot stations, then a stable share of every kiosk (100: all); replaces the rollout under way',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: RolloutRequestSchema } },
        },
        responses: {
          '200': json(RolloutSchema, 'The rollout as it is now'),
          ...problems(401, 403, 404, 422),
        },
      },
    },
  } as ZodOpenApiPathsObject;
}
