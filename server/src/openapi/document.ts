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
  ShipmentListQuerySchema,
  ReturnConfirmRequestSchema,
  ReturnRequestSchema,
  ReturnResponseSchema,
  text,
  ShipmentListSchema,
  ShipmentSchema,
  StationFullProblemSchema,
  TerminalConfigSchema,
  TrackingSchema,
  WebhookEventSchema,
  OfflineDepositRequestSchema,
  OfflineDepositsResponseSchema,
  OfflinePickupsResponseSchema,
} from '@locker/shared';
import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import { examples, ids } from './examples';
import { body, json, Problem, problems, type Operation } from './parts';
import { opsPaths } from './ops';
import { fieldPaths } from './field';
import { platformPaths } from './platform';
import { capacityPaths } from './capacity';
import { sharedDoorPaths } from './sharedDoor';
import { overflowPaths } from './overflow';

const ShipmentId = z.object({ id: z.guid().meta({ example: ids.shipment }) });

export function terminalPost(
  operationId: keyof typeof examples,
  summary: string,
  request: z.ZodType,
  response: z.ZodType,
  errors: number[],
): { post: Operation } {
  const example = examples[operationId] as { request: unknown; response: unknown };
  return {
    post: {
      operationId,
      tags: ['terminal'],
      summary,
      security: [{ deviceToken: [] }],
      requestBody: body(request, example.request, request !== HeartbeatRequestSchema),
      responses: {
        '200': json(response, 'OK', example.response),
        ...problems('terminal', errors, true),
      },
    },
  };
}

const merchant = { tags: ['merchant'], security: [{ apiKey: [] }] };
const DoorPosition = z.object({ door: z.coerce.number().int().min(1).meta({ example: 3 }) });

/** OpenAPI 3.1 of both interfaces, generated from the zod schemas every side validates with. */
export function openApiDocument() {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Parcel Locker Service',
      version: '1.0.0',
      description:
        'Terminal interface (/terminal/v1, device token), merchant interface (/api/v1, organization API key) and operations interface (/ops/v1, operator session cookie). ' +
        'Errors are RFC 9457 problem details; branch on `code`. Every response carries X-Correlation-ID. ' +
        'Every string is text a database column can hold exactly: U+0000 and unpaired UTF-16 surrogates are refused (the `pattern` of each string).',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    // Relative: the server that serves this document (`GET /openapi.json`) serves the API.
    servers: [{ url: '/', description: 'The server that serves this document' }],
    tags: [
      { name: 'terminal', description: 'Interface A: the locker kiosks' },
      { name: 'merchant', description: 'Interface B: shops' },
      { name: 'sandbox', description: 'A sandbox organization’s simulated stations' },
      { name: 'operations', description: 'The operations interface: operators, alerts, audit' },
    ],
    components: {
      securitySchemes: {
        deviceToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'Device token of one terminal, bound to one station',
        },
        apiKey: { type: 'http', scheme: 'bearer', description: 'Organization API key' },
        webhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'webhook-signature',
          description:
            'How a receiver knows a delivery is ours: Standard Webhooks, an HMAC-SHA256 of `webhook-id.webhook-timestamp.body` with the endpoint’s secret (docs/webhooks.md)',
        },
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
          operationId: 'getCabinet',
          tags: ['terminal'],
          summary: 'The door grid of the terminal station; send If-None-Match with the last ETag',
          security: [{ deviceToken: [] }],
          responses: {
            '200': json(CabinetResponseSchema, 'OK', examples.getCabinet.response),
            '304': { description: 'Unchanged since the ETag sent' },
            ...problems('terminal', [], false),
          },
        },
      },
      '/terminal/v1/pickup': terminalPost(
        'pickup',
        'Verify a pickup code and name the door',
        PickupRequestSchema,
        PickupResponseSchema,
        [429],
      ),
      '/terminal/v1/door/confirm': terminalPost(
        'confirmPickup',
        'Record the outcome of a pickup',
        DoorConfirmRequestSchema,
        OkResponseSchema,
        [404],
      ),
      '/terminal/v1/courier/verify': terminalPost(
        'verifyCourier',
        'Verify a courier',
        CourierVerifyRequestSchema,
        CourierVerifyResponseSchema,
        [429],
      ),
      '/terminal/v1/deposit': terminalPost(
        'deposit',
        'Deposit a parcel: assigns the smallest free door that fits',
        DepositRequestSchema,
        DepositResponseSchema,
        [403, 404, 409],
      ),
      '/terminal/v1/return': terminalPost(
        'startReturn',
        'Start or resume a return: holds a door',
        ReturnRequestSchema,
        ReturnResponseSchema,
        [404, 409, 429],
      ),
      '/terminal/v1/return/confirm': terminalPost(
        'confirmReturn',
        'Record the outcome of a return',
        ReturnConfirmRequestSchema,
        OkResponseSchema,
        [404],
      ),
      '/terminal/v1/heartbeat': terminalPost(
        'heartbeat',
        'Liveness; answers the configuration to apply',
        HeartbeatRequestSchema,
        TerminalConfigSchema,
        [],
      ),
      '/terminal/v1/door/fault': terminalPost(
        'reportDoorFault',
        'Extension: report a door that would not open; takes it out of service',
        DoorFaultRequestSchema,
        OkResponseSchema,
        [404],
      ),
      '/terminal/v1/doors/{door}/events': {
        post: {
          ...terminalPost(
            'reportDoorEvent',
            'Extension: what the kiosk saw at a door (found open, opened with no one at it, a pickup it cannot confirm, a board silent after the unlock)',
            DoorEventRequestSchema,
            OkResponseSchema,
            [404],
          ).post,
          requestParams: { path: DoorPosition },
        },
      },
      '/terminal/v1/cabinet/events': terminalPost(
        'reportCabinetEvent',
        'Extension: a lock board whose polarity is suspect (its doors leave service) or that is not as commissioned',
        CabinetEventRequestSchema,
        OkResponseSchema,
        [],
      ),
      '/terminal/v1/deposit/undo': terminalPost(
        'undoDeposit',
        'Extension: undo a deposit whose door the courier shut empty',
        DepositUndoRequestSchema,
        OkResponseSchema,
        [403, 404],
      ),
      '/terminal/v1/courier/returns': terminalPost(
        'listCourierReturns',
        'Extension: the returns and expired parcels a courier can take out here',
        CourierReturnsRequestSchema,
        CourierReturnsResponseSchema,
        [403, 429],
      ),
      '/terminal/v1/courier/returns/collected': terminalPost(
        'recordReturnCollected',
        'Extension: a courier took a return or an expired parcel out of its door',
        ReturnCollectedRequestSchema,
        OkResponseSchema,
        [403, 404],
      ),
      '/terminal/v1/link/logs/{commandId}': {
        post: {
          operationId: 'uploadLinkLogs',
          tags: ['terminal'],
          summary:
            'Extension (the live link): the log bundle an `upload_logs` command asked for, gzip-compressed JSON lines. The link itself is `GET /terminal/v1/link` upgraded to a WebSocket (subprotocol locker-link.v1), described in docs/terminal-extensions.md',
          security: [{ deviceToken: [] }],
          requestParams: {
            path: z.object({
              commandId: z.guid().meta({ example: '6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b' }),
            }),
          },
          requestBody: {
            required: true,
            content: { 'application/gzip': { schema: z.string().meta({ format: 'binary' }) } },
          },
          responses: {
            '200': json(OkResponseSchema, 'OK', { ok: true }),
            ...problems('terminal', [404], true),
          },
        },
      },
      // A locker that works on its own through an outage (docs/terminal-extensions.md).
      '/terminal/v1/offline/pickups': {
        get: {
          operationId: 'getOfflinePickups',
          tags: ['terminal'],
          summary:
            "Extension: the station's offline pickup verifiers; send If-None-Match with the last ETag",
          security: [{ deviceToken: [] }],
          responses: {
            '200': json(OfflinePickupsResponseSchema, 'OK', examples.getOfflinePickups.response),
            '304': { description: 'Unchanged since the ETag sent' },
            ...problems('terminal', [], false),
          },
        },
      },
      '/terminal/v1/offline/deposits': {
        get: {
          operationId: 'getOfflineDeposits',
          tags: ['terminal'],
          summary:
            "Extension: the station's doors, expected parcels and couriers' verifiers; send If-None-Match",
          security: [{ deviceToken: [] }],
          responses: {
            '200': json(OfflineDepositsResponseSchema, 'OK', examples.getOfflineDeposits.response),
            '304': { description: 'Unchanged since the ETag sent' },
            ...problems('terminal', [], false),
          },
        },
      },
      '/terminal/v1/offline/deposit': terminalPost(
        'reportOfflineDeposit',
        'Extension: a deposit the kiosk made on its own, reported with its door',
        OfflineDepositRequestSchema,
        DepositResponseSchema,
        [404],
      ),
      '/api/v1/shipments': {
        post: {
          ...merchant,
          operationId: 'createShipment',
          summary: 'Register a shipment',
          requestParams: {
            header: z.object({
              'Idempotency-Key': text()
                .regex(/^[\x21-\x7e]{1,255}$/)
                .optional()
                .meta({
                  description:
                    'Replays the first answer for 24 hours: 1 to 255 visible ASCII characters',
                  example: 'ORDER-10045',
                }),
            }),
          },
          requestBody: body(CreateShipmentRequestSchema, examples.createShipment.request),
          responses: {
            '201': json(
              ShipmentSchema,
              'Created; Location names the shipment',
              examples.createShipment.response,
            ),
            ...problems('merchant', [409, 422], true),
            '409': {
              description:
                'Problem details: `idempotency_conflict` (the key was used with another body in the last 24 hours), or `station_full` (with `reserve_door`: no door free to hold, and the nearest stations with room)',
              content: {
                'application/problem+json': {
                  schema: z.union([Problem, StationFullProblemSchema]),
                },
              },
            },
          },
        },
        get: {
          ...merchant,
          operationId: 'listShipments',
          summary: "The organization's shipments, newest first",
          requestParams: {
            query: z.object({
              limit: z.number().int().min(1).max(100).optional().meta({ example: 20 }),
              cursor: ShipmentListQuerySchema.shape.cursor.meta({
                description: '`next_cursor` of the previous page',
              }),
              status: ShipmentListQuerySchema.shape.status,
            }),
          },
          responses: {
            '200': json(ShipmentListSchema, 'One page', examples.listShipments.response),
            ...problems('merchant', [422], false),
          },
        },
      },
      '/api/v1/shipments/{id}': {
        get: {
          ...merchant,
          operationId: 'getShipment',
          summary: 'One shipment (another organization’s is 404)',
          requestParams: { path: ShipmentId },
          responses: {
            '200': json(ShipmentSchema, 'OK', examples.getShipment.response),
            ...problems('merchant', [404], false),
          },
        },
      },
      '/api/v1/shipments/{id}/label': {
        get: {
          ...merchant,
          operationId: 'getLabel',
          summary:
            'Label with a Code 128 barcode of the tracking number: pdf (100x150 mm, default), pdf-a6, or zpl for 203/300 dpi thermal printers; a sandbox label is marked SANDBOX',
          requestParams: {
            path: ShipmentId,
            query: z.object({
              format: z.enum(['pdf', 'pdf-a6', 'zpl']).optional().meta({ example: 'pdf' }),
              dpi: z.enum(['203', '300']).optional(),
            }),
          },
          responses: {
            '200': {
              description: 'The label',
              content: {
                'application/pdf': { schema: z.string().meta({ format: 'binary' }) },
                'application/zpl': {
                  schema: text().meta({ example: '^XA^FO40,40^FDPARCEL LOCKER^FS^XZ' }),
                },
              },
            },
            ...problems('merchant', [404, 422], false),
          },
        },
      },
      '/api/v1/track/{trackingNumber}': {
        get: {
          ...merchant,
          operationId: 'trackShipment',
          summary: 'Status and history of one of the organization’s parcels',
          requestParams: {
            path: z.object({
              trackingNumber: text().min(1).max(64).meta({ example: ids.tracking }),
            }),
          },
          responses: {
            '200': json(TrackingSchema, 'OK', examples.trackShipment.response),
            ...problems('merchant', [404], false),
          },
        },
      },
      ...platformPaths(),
      ...opsPaths(),
      ...capacityPaths(),
      ...sharedDoorPaths(),
      ...overflowPaths(),
      ...fieldPaths(),
    },
    webhooks: {
      event: {
        post: {
          operationId: 'webhookEvent',
          summary:
            'Delivered to each enabled webhook endpoint, signed the Standard Webhooks way: webhook-id, webhook-timestamp, webhook-signature (docs/webhooks.md)',
          security: [{ webhookSignature: [] }],
          requestBody: body(WebhookEventSchema, examples.webhookEvent.request),
          responses: {
            '200': { description: 'Any 2xx acknowledges the event' },
            '410': { description: 'Gone: the endpoint is disabled until enabled again' },
          },
        },
      },
    },
  });
}
