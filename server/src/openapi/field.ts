import {
  CredentialsResponseSchema,
  EnrolRequestSchema,
  EnrolResponseSchema,
  OkResponseSchema,
  UpdateAssignmentSchema,
  UpdateReportRequestSchema,
  text,
} from '@locker/shared';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { body, json, problems } from './parts';

const terminal = { tags: ['terminal'], security: [{ deviceToken: [] }] };
const AT = '2026-11-22T14:05:12.000Z';
const release = {
  version: '2.4.0',
  sha256: 'a3f1c2e4b5d6978877665544332211ffeeddccbbaa99887766554433221100ff',
  size: 51_807_232,
  signature:
    'rZ0F0n8Xb3mVQ1p0m2vC7Hq3c2o4V9k0yQ8V4Jm1xB5wLQe0n3yRkT1u6fA9sZ2pD8gH7jK4lM5nO0pQ1rS2tA==',
};

/**
 * The field extensions of the terminal interface (docs/terminal-extensions.md): the
 * enrolment, token rotation and kiosk updates (issue 26).
 */
export function fieldPaths(): ZodOpenApiPathsObject {
  return {
    '/terminal/v1/enrol': {
      post: {
        operationId: 'enrolTerminal',
        tags: ['terminal'],
        summary:
          'Extension: a new kiosk exchanges its one-time enrolment code for its device token (no token; limited per address)',
        security: [],
        requestBody: body(EnrolRequestSchema, { code: '4821-0937-55' }),
        responses: {
          '200': json(EnrolResponseSchema, 'Enrolled: the token, once, and the station', {
            terminal_id: '2c9d7e1a-3b4f-4c5d-8e6f-7a8b9c0d1e2f',
            token: 'tdev_3q2+7w==example',
            station: { code: 'PR01', name: 'Prishtina' },
          }),
          ...problems('terminal', [429], true),
        },
      },
    },
    '/terminal/v1/credentials': {
      post: {
        ...terminal,
        operationId: 'rotateDeviceToken',
        summary:
          'Extension: whether the device token is due for replacement; a new one is offered at 25 days and replaces the old on its first use',
        responses: {
          '200': json(
            CredentialsResponseSchema,
            'A new token (once), or null while the current one is young',
            { next_token: null, rotate_after: AT },
          ),
          ...problems('terminal', [], false),
        },
      },
    },
    '/terminal/v1/update': {
      get: {
        ...terminal,
        operationId: 'getAssignedRelease',
        summary:
          "Extension: the kiosk release this terminal's ring should run (its signed manifest), or null",
        responses: {
          '200': json(UpdateAssignmentSchema, 'The release assigned, or null', { release }),
          ...problems('terminal', [], false),
        },
      },
    },
    '/terminal/v1/update/bundle/{version}': {
      get: {
        ...terminal,
        operationId: 'getReleaseBundle',
        summary:
          'Extension: the bytes of a release bundle (tar.gz); the kiosk checks the signature, size and SHA-256 before installing',
        requestParams: { path: z.object({ version: text().meta({ example: '2.4.0' }) }) },
        responses: {
          '200': {
            description: 'The bundle',
            content: { 'application/gzip': { schema: z.string().meta({ format: 'binary' }) } },
          },
          ...problems('terminal', [404], false),
        },
      },
    },
    '/terminal/v1/update/report': {
      post: {
        ...terminal,
        operationId: 'reportReleaseOutcome',
        summary:
          'Extension: what became of a release on this kiosk: running (healthy), rolled_back, refused (bad signature or digest)',
        requestBody: body(UpdateReportRequestSchema, { version: '2.4.0', outcome: 'running' }),
        responses: {
          '200': json(OkResponseSchema, 'Recorded', { ok: true }),
          ...problems('terminal', [], true),
        },
      },
    },
  };
}
