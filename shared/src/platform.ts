import { z } from 'zod';
import { WebhookEventSchema, WebhookEventTypeSchema } from './merchant';

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

/** An absolute http(s) URL without credentials. */
export const WebhookUrlSchema = z
  .string()
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
    description: z.string().trim().max(200).optional(),
  })
  .meta({
    id: 'CreateWebhookEndpointRequest',
    example: { url: 'https://shop.example/hooks/locker', description: 'order system' },
  });

export const WebhookEndpointSchema = z
  .object({
    id: z.guid(),
    url: z.string(),
    description: z.string().nullable(),
    /** `disabled` after the endpoint answered 410 Gone; POST …/enable resumes it. */
    status: z.enum(['enabled', 'disabled']),
    disabled_reason: z.string().nullable(),
    created_at: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

export const WebhookEndpointCreatedSchema = WebhookEndpointSchema.extend({
  /** `whsec_…`: shown here and on rotation only. Verify deliveries with it. */
  secret: z.string(),
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
    secret: z.string(),
    previous_secret_valid_until: z.iso.datetime({ offset: true }).nullable(),
  })
  .meta({ id: 'RotatedSecret' });
