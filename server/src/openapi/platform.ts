import {
  BulkCreateRequestSchema,
  BulkCreateResultSchema,
  CreateWebhookEndpointRequestSchema,
  EventListQuerySchema,
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
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { examples, ids } from './examples';
import { body, json, problems } from './parts';

const Id = (example: string) => z.object({ id: z.guid().meta({ example }) });
const merchant = { tags: ['merchant'], security: [{ apiKey: [] }] };
const sandbox = { tags: ['sandbox'], security: [{ apiKey: [] }] };

/** The merchant platform beyond the spec: bulk, events, webhook endpoints, sandbox. */
export function platformPaths(): ZodOpenApiPathsObject {
  return {
    '/api/v1/shipments/bulk': {
      post: {
        ...merchant,
        operationId: 'createShipmentsInBulk',
        summary: 'Register up to 100 shipments; a result per item, idempotent per item key',
        requestBody: body(BulkCreateRequestSchema, examples.createShipmentsInBulk.request),
        responses: {
          '200': json(
            BulkCreateResultSchema,
            'A result per item, in request order',
            examples.createShipmentsInBulk.response,
          ),
          ...problems('merchant', [422], true),
        },
      },
    },
    '/api/v1/events': {
      get: {
        ...merchant,
        operationId: 'listEvents',
        summary: "The organization's events, oldest first, after the event id `after`",
        requestParams: {
          query: z.object({
            after: EventListQuerySchema.shape.after.meta({ example: ids.event }),
            limit: z.number().int().min(1).max(100).optional(),
            type: z.enum(WEBHOOK_EVENT_TYPES).optional(),
          }),
        },
        responses: {
          '200': json(EventListSchema, 'One page', examples.listEvents.response),
          ...problems('merchant', [422], false),
        },
      },
    },
    '/api/v1/events/{id}/redeliver': {
      post: {
        ...merchant,
        operationId: 'redeliverEvent',
        summary: 'Queue one event again to every enabled endpoint (same webhook-id)',
        requestParams: { path: Id(ids.event) },
        responses: {
          '202': json(RedeliverySchema, 'Queued', examples.redeliverEvent.response),
          ...problems('merchant', [404], false),
        },
      },
    },
    '/api/v1/webhooks': {
      post: {
        ...merchant,
        operationId: 'createWebhookEndpoint',
        summary: 'Add a webhook endpoint; the answer carries its signing secret, once',
        requestBody: body(
          CreateWebhookEndpointRequestSchema,
          examples.createWebhookEndpoint.request,
        ),
        responses: {
          '201': json(
            WebhookEndpointCreatedSchema,
            'Created',
            examples.createWebhookEndpoint.response,
          ),
          ...problems('merchant', [422], true),
        },
      },
      get: {
        ...merchant,
        operationId: 'listWebhookEndpoints',
        summary: "The organization's webhook endpoints (without secrets)",
        responses: {
          '200': json(WebhookEndpointListSchema, 'OK', examples.listWebhookEndpoints.response),
          ...problems('merchant', [], false),
        },
      },
    },
    '/api/v1/webhooks/{id}': {
      delete: {
        ...merchant,
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete an endpoint and its pending deliveries (events stay)',
        requestParams: { path: Id(ids.endpoint) },
        responses: { '204': { description: 'Deleted' }, ...problems('merchant', [404], false) },
      },
    },
    '/api/v1/webhooks/{id}/rotate-secret': {
      post: {
        ...merchant,
        operationId: 'rotateWebhookSecret',
        summary: 'A new signing secret; the old one signs too for rollover_hours (24)',
        requestParams: { path: Id(ids.endpoint) },
        requestBody: body(RotateSecretRequestSchema, examples.rotateWebhookSecret.request, false),
        responses: {
          '200': json(RotatedSecretSchema, 'OK', examples.rotateWebhookSecret.response),
          ...problems('merchant', [404, 422], true),
        },
      },
    },
    '/api/v1/webhooks/{id}/enable': {
      post: {
        ...merchant,
        operationId: 'enableWebhookEndpoint',
        summary: 'Resume an endpoint disabled after it answered 410 Gone',
        requestParams: { path: Id(ids.endpoint) },
        responses: {
          '200': json(WebhookEndpointSchema, 'OK', examples.enableWebhookEndpoint.response),
          ...problems('merchant', [404], false),
        },
      },
    },
    '/api/v1/sandbox/stations': {
      get: {
        ...sandbox,
        operationId: 'listSandboxStations',
        summary: "A sandbox organization's simulated stations (empty for a live one)",
        responses: {
          '200': json(SandboxStationListSchema, 'OK', examples.listSandboxStations.response),
          ...problems('merchant', [], false),
        },
      },
    },
    '/api/v1/sandbox/shipments/{id}/advance': {
      post: {
        ...sandbox,
        operationId: 'advanceSandboxShipment',
        summary: 'Drive a sandbox shipment one step, exactly as a kiosk would',
        requestParams: { path: Id(ids.shipment) },
        requestBody: body(SandboxAdvanceRequestSchema, examples.advanceSandboxShipment.request),
        responses: {
          '200': json(
            ShipmentSchema,
            'The shipment after the step',
            examples.advanceSandboxShipment.response,
          ),
          ...problems('merchant', [404, 422], true),
        },
      },
    },
  };
}
