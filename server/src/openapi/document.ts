import {
  CabinetResponseSchema,
  CourierVerifyRequestSchema,
  CourierVerifyResponseSchema,
  CreateShipmentRequestSchema,
  DepositRequestSchema,
  DepositUndoRequestSchema,
  CourierReturnsRequestSchema,
  CourierReturnsResponseSchema,
  ReturnCollectedRequestSchema,
  DoorFaultRequestSchema,
  DoorEventRequestSchema,
  CabinetEventRequestSchema,
  DepositResponseSchema,
  DoorConfirmRequestSchema,
  HeartbeatRequestSchema,
  OkResponseSchema,
  PickupRequestSchema,
  PickupResponseSchema,
  ProblemSchema,
  ReturnConfirmRequestSchema,
  ReturnRequestSchema,
  ReturnResponseSchema,
  SHIPMENT_STATUSES,
  ShipmentListSchema,
  ShipmentSchema,
  StationFullProblemSchema,
  TerminalConfigSchema,
  TrackingSchema,
  WebhookEventSchema,
} from '@locker/shared';
import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { opsPaths } from './ops';
import { platformPaths } from './platform';
import { capacityPaths } from './capacity';

const Problem = ProblemSchema.meta({ id: 'Problem' });

function json(schema: z.ZodType, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

function problems(...statuses: number[]): ZodOpenApiResponsesObject {
  return Object.fromEntries(
    statuses.map((s) => [
      String(s),
      {
        description: `Problem details (see \`code\`)`,
        content: { 'application/problem+json': { schema: Problem } },
      },
    ]),
  );
}

function terminalPost(
  summary: string,
  request: z.ZodType | undefined,
  response: z.ZodType,
  errors: number[],
): { post: ZodOpenApiOperationObject } {
  return {
    post: {
      tags: ['terminal'],
      summary,
      security: [{ deviceToken: [] }],
      ...(request
        ? {
            requestBody: {
              required: request !== HeartbeatRequestSchema,
              content: { 'application/json': { schema: request } },
            },
          }
        : {}),
      responses: { '200': json(response, 'OK'), ...problems(...errors) },
    },
  };
}

const ShipmentId = z.object({ id: z.guid() });
const DoorPosition = z.object({ door: z.coerce.number().int().min(1) });

/** OpenAPI 3.1 of both interfaces, generated from the zod schemas every side validates with. */
export function openApiDocument() {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Parcel Locker Service',
      version: '1.0.0',
      description:
        'Terminal interface (/terminal/v1, device token), merchant interface (/api/v1, organization API key) and operations interface (/ops/v1, operator session cookie). ' +
        'Errors are RFC 9457 problem details; branch on `code`. Every response carries X-Correlation-ID.',
    },
    components: {
      securitySchemes: {
        deviceToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'Device token of one terminal, bound to one station',
        },
        apiKey: { type: 'http', scheme: 'bearer', description: 'Organization API key' },
        operatorSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'locker_ops',
          description:
            'Operator session cookie (`__Host-locker_ops` when Secure); unsafe methods also need the console’s Origin',
        },
      },
    },
    paths: {
      '/terminal/v1/cabinet': {
        get: {
          tags: ['terminal'],
          summary: 'The door grid of the terminal station; send If-None-Match with the last ETag',
          security: [{ deviceToken: [] }],
          responses: {
            '200': json(CabinetResponseSchema, 'OK'),
            '304': { description: 'Unchanged since the ETag sent' },
            ...problems(401, 500),
          },
        },
      },
      '/terminal/v1/pickup': terminalPost(
        'Verify a pickup code and name the door',
        PickupRequestSchema,
        PickupResponseSchema,
        [400, 401, 429],
      ),
      '/terminal/v1/door/confirm': terminalPost(
        'Record the outcome of a pickup',
        DoorConfirmRequestSchema,
        OkResponseSchema,
        [400, 401, 404],
      ),
      '/terminal/v1/courier/verify': terminalPost(
        'Verify a courier',
        CourierVerifyRequestSchema,
        CourierVerifyResponseSchema,
        [400, 401],
      ),
      '/terminal/v1/deposit': terminalPost(
        'Deposit a parcel: assigns the smallest free door that fits',
        DepositRequestSchema,
        DepositResponseSchema,
        [400, 401, 403, 404, 409],
      ),
      '/terminal/v1/return': terminalPost(
        'Start or resume a return: holds a door',
        ReturnRequestSchema,
        ReturnResponseSchema,
        [400, 401, 404, 409, 429],
      ),
      '/terminal/v1/return/confirm': terminalPost(
        'Record the outcome of a return',
        ReturnConfirmRequestSchema,
        OkResponseSchema,
        [400, 401, 404],
      ),
      '/terminal/v1/heartbeat': terminalPost(
        'Liveness; answers the configuration to apply',
        HeartbeatRequestSchema,
        TerminalConfigSchema,
        [400, 401],
      ),
      '/terminal/v1/door/fault': terminalPost(
        'Extension: report a door that would not open; takes it out of service',
        DoorFaultRequestSchema,
        OkResponseSchema,
        [400, 401, 404],
      ),
      '/terminal/v1/doors/{door}/events': {
        post: {
          ...terminalPost(
            'Extension: what the kiosk saw at a door (found open, opened with no one at it, a pickup it cannot confirm, a board silent after the unlock)',
            DoorEventRequestSchema,
            OkResponseSchema,
            [400, 401, 404],
          ).post,
          requestParams: { path: DoorPosition },
        },
      },
      '/terminal/v1/cabinet/events': terminalPost(
        'Extension: a lock board whose polarity is suspect (its doors leave service) or that is not as commissioned',
        CabinetEventRequestSchema,
        OkResponseSchema,
        [400, 401],
      ),
      '/terminal/v1/deposit/undo': terminalPost(
        'Extension: undo a deposit whose door the courier shut empty',
        DepositUndoRequestSchema,
        OkResponseSchema,
        [400, 401, 403, 404],
      ),
      '/terminal/v1/courier/returns': terminalPost(
        'Extension: the returns and expired parcels a courier can take out here',
        CourierReturnsRequestSchema,
        CourierReturnsResponseSchema,
        [400, 401, 403],
      ),
      '/terminal/v1/courier/returns/collected': terminalPost(
        'Extension: a courier took a return or an expired parcel out of its door',
        ReturnCollectedRequestSchema,
        OkResponseSchema,
        [400, 401, 403, 404],
      ),
      '/terminal/v1/link/logs/{commandId}': {
        post: {
          tags: ['terminal'],
          summary:
            'Extension (the live link): the log bundle an `upload_logs` command asked for, gzip-compressed JSON lines. The link itself is `GET /terminal/v1/link` upgraded to a WebSocket (subprotocol locker-link.v1), described in docs/terminal-extensions.md',
          security: [{ deviceToken: [] }],
          requestParams: { path: z.object({ commandId: z.guid() }) },
          requestBody: {
            required: true,
            content: { 'application/gzip': { schema: z.string().meta({ format: 'binary' }) } },
          },
          responses: { '200': json(OkResponseSchema, 'OK'), ...problems(400, 401, 404, 413) },
        },
      },
      '/api/v1/shipments': {
        post: {
          tags: ['merchant'],
          summary: 'Register a shipment',
          security: [{ apiKey: [] }],
          requestParams: {
            header: z.object({ 'Idempotency-Key': z.string().max(255).optional() }),
          },
          requestBody: {
            required: true,
            content: { 'application/json': { schema: CreateShipmentRequestSchema } },
          },
          responses: {
            '201': json(ShipmentSchema, 'Created; Location names the shipment'),
            ...problems(401, 409, 422, 429),
            '409': {
              description:
                '`idempotency_conflict`, or `station_full` (with `reserve_door`: no door free, and the nearest stations with room)',
              content: {
                'application/problem+json': {
                  schema: z.union([Problem, StationFullProblemSchema]),
                },
              },
            },
          },
        },
        get: {
          tags: ['merchant'],
          summary: "The organization's shipments, newest first",
          security: [{ apiKey: [] }],
          requestParams: {
            query: z.object({
              limit: z.number().int().min(1).max(100).optional(),
              cursor: z.string().optional(),
              status: z.enum(SHIPMENT_STATUSES).optional(),
            }),
          },
          responses: { '200': json(ShipmentListSchema, 'One page'), ...problems(401, 422, 429) },
        },
      },
      '/api/v1/shipments/{id}': {
        get: {
          tags: ['merchant'],
          summary: 'One shipment (another organization’s is 404)',
          security: [{ apiKey: [] }],
          requestParams: { path: ShipmentId },
          responses: { '200': json(ShipmentSchema, 'OK'), ...problems(401, 404, 429) },
        },
      },
      '/api/v1/shipments/{id}/label': {
        get: {
          tags: ['merchant'],
          summary:
            'Label with a Code 128 barcode of the tracking number: pdf (100x150 mm, default), pdf-a6, or zpl for 203/300 dpi thermal printers',
          security: [{ apiKey: [] }],
          requestParams: {
            path: ShipmentId,
            query: z.object({
              format: z.enum(['pdf', 'pdf-a6', 'zpl']).optional(),
              dpi: z.enum(['203', '300']).optional(),
            }),
          },
          responses: {
            '200': {
              description: 'The label',
              content: {
                'application/pdf': { schema: z.string().meta({ format: 'binary' }) },
                'application/zpl': { schema: z.string() },
              },
            },
            ...problems(401, 404, 422, 429),
          },
        },
      },
      '/api/v1/track/{trackingNumber}': {
        get: {
          tags: ['merchant'],
          summary: 'Status and history of one of the organization’s parcels',
          security: [{ apiKey: [] }],
          requestParams: { path: z.object({ trackingNumber: z.string() }) },
          responses: { '200': json(TrackingSchema, 'OK'), ...problems(401, 404, 429) },
        },
      },
      ...platformPaths(json, problems),
      ...opsPaths(json, problems),
      ...capacityPaths(json, problems),
    },
    webhooks: {
      event: {
        post: {
          summary:
            'Delivered to each enabled webhook endpoint, signed the Standard Webhooks way: webhook-id, webhook-timestamp, webhook-signature (docs/webhooks.md)',
          requestBody: { content: { 'application/json': { schema: WebhookEventSchema } } },
          responses: { '200': { description: 'Any 2xx acknowledges the event' } },
        },
      },
    },
  });
}
