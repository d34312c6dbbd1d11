import { z } from 'zod';
import {
  CreateShipmentRequestSchema,
  ShipmentSchema,
  WebhookEventSchema,
  WebhookEventTypeSchema,
} from './merchant';
import { text } from './common';
import { FieldErrorSchema } from './problem';

// The merchant platform beyond the spec's part B: events to pull, webhook endpoints,
// bulk creation, sandbox. Field names are snake_case like part B.

export const EventListQuerySchema = z.strictObject({
  /** The id of the last event already processed; omitted: from the oldest. */
  after: z.guid({ error: 'must be the id of an event' }).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  type: WebhookEventTypeSchema.optional(),
});

export const EventListSchema = z
  .object({
    /** Oldest first. */
    data: z.array(WebhookEventSchema),
    /** More events follow this page. */
    has_more: z.boolean(),
    /** Pass as `after` for the next page: the last id of this page, else the `after` sent. */
    next_after: z.guid().nullable(),
  })
  .meta({ id: 'EventList' });
export type EventList = z.infer<typeof EventListSchema>;

export const RedeliverySchema = z
  .object({
    event_id: z.guid(),
    /** The enabled endpoints the event was queued to again, with the same webhook-id. */
    endpoint_ids: z.array(z.guid()),
  })
  .meta({ id: 'Redelivery' });
export type Redelivery = z.infer<typeof RedeliverySchema>;

/** An absolute http(s) URL without credentials, of text a column can hold as sent. */
export const WebhookUrlSchema = text()
  .max(2000)
  .superRefine((value, ctx) => {
    const url = URL.canParse(value) ? new URL(value) : undefined;
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be an absolute http(s) URL without credentials',
        params: { code: 'invalid_url' },
      });
    }
  });

export const CreateWebhookEndpointRequestSchema = z
  .strictObject({
    url: WebhookUrlSchema,
    description: text().trim().max(200).optional(),
  })
  .meta({
    id: 'CreateWebhookEndpointRequest',
    example: { url: 'https://shop.example/hooks/locker', description: 'order system' },
  });

export const WebhookEndpointSchema = z
  .object({
    id: z.guid(),
    url: text(),
    description: text().nullable(),
    /** `disabled` after the endpoint answered 410 Gone; POST …/enable resumes it. */
    status: z.enum(['enabled', 'disabled']),
    disabled_reason: text().nullable(),
    created_at: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

export const WebhookEndpointCreatedSchema = WebhookEndpointSchema.extend({
  /** `whsec_…`: shown here and on rotation only. Verify deliveries with it. */
  secret: text(),
}).meta({ id: 'WebhookEndpointCreated' });

export const WebhookEndpointListSchema = z
  .object({ data: z.array(WebhookEndpointSchema) })
  .meta({ id: 'WebhookEndpointList' });

export const RotateSecretRequestSchema = z
  .strictObject({
    /** How long the old secret keeps signing beside the new one; 0 stops it at once. */
    rollover_hours: z.number().int().min(0).max(168).default(24),
  })
  .meta({ id: 'RotateSecretRequest' });

export const RotatedSecretSchema = z
  .object({
    id: z.guid(),
    secret: text(),
    previous_secret_valid_until: z.iso.datetime({ offset: true }).nullable(),
  })
  .meta({ id: 'RotatedSecret' });

/** At most this many shipments in one bulk call. */
export const BULK_MAX = 100;

export const BulkShipmentItemSchema = CreateShipmentRequestSchema.extend({
  /** Makes this item idempotent for 24 h, like the Idempotency-Key header of a single create. */
  idempotency_key: text()
    .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters')
    .optional(),
}).meta({ id: 'BulkShipmentItem' });

export const BulkCreateRequestSchema = z
  .strictObject({
    // Items are judged one by one, so one bad item never fails the others.
    shipments: z.array(z.unknown()).min(1).max(BULK_MAX),
  })
  .meta({
    id: 'BulkCreateRequest',
    example: {
      shipments: [
        {
          idempotency_key: 'ORDER-10045',
          destination_station_id: '5b0e4a7e-2f1c-4d7e-9a51-0c3f6b8d2e41',
          parcel_size: 'M',
          recipient_name: 'Drita Gashi',
          recipient_phone: '+38344123456',
          recipient_language: 'sq',
          merchant_order_reference: 'ORDER-10045',
        },
      ],
    },
  });

export const BulkItemResultSchema = z.object({
  /** Position of the item in the request. */
  index: z.number().int(),
  idempotency_key: text().nullable(),
  /** `replayed`: the key was used before with this item; the first shipment is returned. */
  result: z.enum(['created', 'replayed', 'invalid', 'conflict']),
  shipment: ShipmentSchema.optional(),
  errors: z.array(FieldErrorSchema).optional(),
});

export const BulkCreateResultSchema = z
  .object({
    results: z.array(BulkItemResultSchema),
    created: z.number().int(),
    failed: z.number().int(),
  })
  .meta({ id: 'BulkCreateResult' });
export type BulkCreateResult = z.infer<typeof BulkCreateResultSchema>;
export type BulkItemResult = z.infer<typeof BulkItemResultSchema>;

/**
 * What a sandbox shipment can be made to do next, each exactly as a kiosk (or the
 * storage sweep) would do it: the same code, the same events and webhooks.
 */
export const SANDBOX_ACTIONS = [
  'deposit',
  'collect',
  'cancel_deposit',
  'remind_free_storage_end',
  'remind_expiry',
  'expire',
  'start_return',
  'deposit_return',
  'courier_collect',
] as const;

export const SandboxAdvanceRequestSchema = z
  .strictObject({
    action: z.enum(SANDBOX_ACTIONS, { error: `must be one of ${SANDBOX_ACTIONS.join(', ')}` }),
  })
  .meta({ id: 'SandboxAdvanceRequest', example: { action: 'deposit' } });
export type SandboxAction = (typeof SANDBOX_ACTIONS)[number];

export const SandboxStationListSchema = z
  .object({
    data: z.array(z.object({ id: z.guid(), code: text(), name: text(), cabinet_sn: text() })),
  })
  .meta({ id: 'SandboxStationList' });
