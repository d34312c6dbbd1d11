import {
  BulkCreateRequestSchema,
  BulkCreateResultSchema,
  CreateWebhookEndpointRequestSchema,
  EventListSchema,
  RedeliverySchema,
  RotatedSecretSchema,
  RotateSecretRequestSchema,
  SandboxAdvanceRequestSchema,
  SandboxStationListSchema,
  ShipmentSchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WEBHOOK_EVENT_TYPES,
} from '@locker/shared';
import { z } from 'zod';
import type {
  ZodOpenApiPathsObject,
  ZodOpenApiResponseObject,
  ZodOpenApiResponsesObject,
} from 'zod-openapi';

type Json = (schema: z.ZodType, description: string) => ZodOpenApiResponseObject;
type Problems = (...statuses: number[]) => ZodOpenApiResponsesObject;

const Id = z.object({ id: z.guid() });
const merchant = { tags: ['merchant'], security: [{ apiKey: [] }] };
const sandbox = { tags: ['sandbox'], security: [{ apiKey: [] }] };

function body(schema: z.ZodType, required = true) {
  return { required, content: { 'application/json': { schema } } };
}

/** The merchant platform beyond the spec: bulk, events, webhook endpoints, sandbox. */
export function platformPaths(json: Json, problems: Problems): ZodOpenApiPathsObject {
  return {
    '/api/v1/shipments/bulk': {
      post: {
        ...merchant,
        summary: 'Register up to 100 shipments; a result per item, idempotent per item key',
        requestBody: body(BulkCreateRequestSchema),
        responses: {
          '200': json(BulkCreateResultSchema, 'A result per item, in request order'),
          ...problems(401, 422, 429),
        },
      },
    },
    '/api/v1/events': {
      get: {
        ...merchant,
        summary: "The organization's events, oldest first, after the event id `after`",
        requestParams: {
          query: z.object({
            after: z.guid().optional(),
            limit: z.number().int().min(1).max(100).optional(),
            type: z.enum(WEBHOOK_EVENT_TYPES).optional(),
          }),
        },
        responses: { '200': json(EventListSchema, 'One page'), ...problems(401, 422, 429) },
      },
    },
    '/api/v1/events/{id}/redeliver': {
      post: {
        ...merchant,
        summary: 'Queue one event again to every enabled endpoint (same webhook-id)',
        requestParams: { path: Id },
        responses: { '202': json(RedeliverySchema, 'Queued'), ...problems(401, 404, 429) },
      },
    },
    '/api/v1/webhooks': {
      post: {
        ...merchant,
        summary: 'Add a webhook endpoint; the answer carries its signing secret, once',
        requestBody: body(CreateWebhookEndpointRequestSchema),
        responses: {
          '201': json(WebhookEndpointCreatedSchema, 'Created'),
          ...problems(401, 422, 429),
        },
      },
      get: {
        ...merchant,
        summary: "The organization's webhook endpoints (without secrets)",
        responses: { '200': json(WebhookEndpointListSchema, 'OK'), ...problems(401, 429) },
      },
    },
    '/api/v1/webhooks/{id}': {
      delete: {
        ...merchant,
        summary: 'Delete an endpoint and its pending deliveries (events stay)',
        requestParams: { path: Id },
        responses: { '204': { description: 'Deleted' }, ...problems(401, 404, 429) },
      },
    },
    '/api/v1/webhooks/{id}/rotate-secret': {
      post: {
        ...merchant,
        summary: 'A new signing secret; the old one signs too for rollover_hours (24)',
        requestParams: { path: Id },
        requestBody: body(RotateSecretRequestSchema, false),
        responses: { '200': json(RotatedSecretSchema, 'OK'), ...problems(401, 404, 422, 429) },
      },
    },
    '/api/v1/webhooks/{id}/enable': {
      post: {
        ...merchant,
        summary: 'Resume an endpoint disabled after it answered 410 Gone',
        requestParams: { path: Id },
        responses: { '200': json(WebhookEndpointSchema, 'OK'), ...problems(401, 404, 429) },
      },
    },
    '/api/v1/sandbox/stations': {
      get: {
        ...sandbox,
        summary: "A sandbox organization's simulated stations (empty for a live one)",
        responses: { '200': json(SandboxStationListSchema, 'OK'), ...problems(401, 429) },
      },
    },
    '/api/v1/sandbox/shipments/{id}/advance': {
      post: {
        ...sandbox,
        summary: 'Drive a sandbox shipment one step, exactly as a kiosk would',
        requestParams: { path: Id },
        requestBody: body(SandboxAdvanceRequestSchema),
        responses: {
          '200': json(ShipmentSchema, 'The shipment after the step'),
          ...problems(401, 404, 422, 429),
        },
      },
    },
  };
}
