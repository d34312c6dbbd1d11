import { isValidPhoneNumber } from 'libphonenumber-js/max';
import { z } from 'zod';
import { ReservationSchema } from './capacity';
import { ReroutedFromSchema } from './overflow';
import { LanguageSchema, SHIPMENT_STATUSES, SIZES, SizeSchema, text } from './common';

// Part B of the interface. Field names are the spec's snake_case.

export const ShipmentStatusSchema = z.enum(SHIPMENT_STATUSES);
export type ShipmentStatus = z.infer<typeof ShipmentStatusSchema>;

const E164 = /^\+[1-9]\d{6,14}$/;

/** A real, dialable international number in E.164, judged by libphonenumber's metadata. */
export const PhoneSchema = text().superRefine((value, ctx) => {
  if (!E164.test(value) || !isValidPhoneNumber(value)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be a valid international phone number in E.164 form, e.g. +38344123456',
      params: { code: 'invalid_phone' },
    });
  }
});

export const CreateShipmentRequestSchema = z
  .strictObject({
    /** Id of the destination station (the locker the recipient collects from). */
    destination_station_id: z.guid({ error: 'must be the UUID of a station' }),
    parcel_size: z.enum(SIZES, { error: `must be one of ${SIZES.join(', ')}` }),
    /** Full name; the kiosk shows only the first word. */
    recipient_name: text().trim().min(1, 'must not be empty').max(200),
    recipient_phone: PhoneSchema,
    /** Language of the pickup-code SMS. */
    recipient_language: z.enum(['sq', 'sr', 'tr', 'en'], {
      error: 'must be one of sq, sr, tr, en',
    }),
    merchant_order_reference: text().max(100).optional(),
    /**
     * Extension: hold a door the parcel fits from now until its deposit (or until the
     * station's reservation time lapses); a station with none free answers 409
     * `station_full` with the nearest stations that have room. Omitted: no door is held,
     * and the deposit may find the station full (409 `cabinet_full`), as the spec says.
     */
    reserve_door: z.boolean().optional(),
    /** Extension: only a door whose handle lies within 380-1,220 mm, at reservation and deposit. */
    accessible_door: z.boolean().optional(),
  })
  .meta({
    id: 'CreateShipmentRequest',
    example: {
      destination_station_id: '5b0e4a7e-2f1c-4d7e-9a51-0c3f6b8d2e41',
      parcel_size: 'M',
      recipient_name: 'Drita Gashi',
      recipient_phone: '+38344123456',
      recipient_language: 'sq',
      merchant_order_reference: 'ORDER-10045',
    },
  });
export type CreateShipmentRequest = z.infer<typeof CreateShipmentRequestSchema>;

export const DestinationSchema = z.object({
  cabinet_sn: text(),
  /** Door position once deposited; null before. */
  slot_no: z.number().int().nullable(),
});

export const ShipmentSchema = z
  .object({
    id: z.guid(),
    tracking_number: text(),
    status: ShipmentStatusSchema,
    destination: DestinationSchema,
    destination_station_id: z.guid(),
    destination_station_code: text(),
    parcel_size: SizeSchema,
    recipient_name: text(),
    recipient_phone: text(),
    recipient_language: LanguageSchema,
    merchant_order_reference: text().nullable(),
    /** Where the 100x150 mm PDF label is. */
    label_url: text(),
    created_at: z.iso.datetime({ offset: true }),
    updated_at: z.iso.datetime({ offset: true }),
    /** Extension: present when the booking reserved a door. */
    reservation: ReservationSchema.optional(),
    /** Extension: present (true) when the booking asked for a door within reach. */
    accessible_door: z.literal(true).optional(),
  })
  .meta({
    id: 'Shipment',
    example: {
      id: '0b5e2f57-8a1e-4c2e-9d7e-3f5c2a1b0c9d',
      tracking_number: '4012888888881',
      status: 'booked',
      destination: { cabinet_sn: 'KR-CU16-0042', slot_no: null },
      destination_station_id: '5b0e4a7e-2f1c-4d7e-9a51-0c3f6b8d2e41',
      destination_station_code: 'PR01',
      parcel_size: 'M',
      recipient_name: 'Drita Gashi',
      recipient_phone: '+38344123456',
      recipient_language: 'sq',
      merchant_order_reference: 'ORDER-10045',
      label_url: '/api/v1/shipments/0b5e2f57-8a1e-4c2e-9d7e-3f5c2a1b0c9d/label',
      created_at: '2026-11-22T09:30:00.000Z',
      updated_at: '2026-11-22T09:30:00.000Z',
    },
  });
export type Shipment = z.infer<typeof ShipmentSchema>;

export const ShipmentListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  /** `next_cursor` of the previous page. */
  cursor: text().min(1).max(200).optional(),
  status: ShipmentStatusSchema.optional(),
});
export type ShipmentListQuery = z.infer<typeof ShipmentListQuerySchema>;

export const ShipmentListSchema = z
  .object({ data: z.array(ShipmentSchema), next_cursor: text().nullable() })
  .meta({ id: 'ShipmentList' });
export type ShipmentList = z.infer<typeof ShipmentListSchema>;

export const TrackingEventSchema = z.object({
  status: ShipmentStatusSchema,
  /** When it happened to the parcel; never before the previous event. */
  occurred_at: z.iso.datetime({ offset: true }),
  /**
   * Only when the terminal reported a time before the parcel's previous event (its clock
   * was off): that time, as reported. `occurred_at` is then the time of receipt.
   */
  reported_at: z.iso.datetime({ offset: true }).optional(),
  station_code: text().optional(),
  /**
   * A courier found the station full and took the parcel to `station_code` instead
   * (issue 27): the station it was booked to before. Only on that `booked` event.
   */
  rerouted_from_station_code: text().optional(),
});

export const TrackingSchema = z
  .object({
    tracking_number: text(),
    status: ShipmentStatusSchema,
    /** Oldest first. */
    events: z.array(TrackingEventSchema),
  })
  .meta({
    id: 'Tracking',
    example: {
      tracking_number: '4012888888881',
      status: 'ready_for_pickup',
      events: [
        { status: 'booked', occurred_at: '2026-11-22T09:30:00.000Z' },
        {
          status: 'ready_for_pickup',
          occurred_at: '2026-11-22T14:05:12.000Z',
          station_code: 'PR01',
        },
      ],
    },
  });
export type Tracking = z.infer<typeof TrackingSchema>;

/** The version of the event catalogue (docs/webhooks.md) every event body names. */
export const EVENT_API_VERSION = '2026-11-22';

export const WEBHOOK_EVENT_TYPES = [
  'shipment.ready_for_pickup',
  'shipment.collected',
  'shipment.deposit_cancelled',
  'shipment.free_storage_ending',
  'shipment.expiring',
  'shipment.expired',
  'return.started',
  'return.deposited',
  'shipment.return_collected',
  // Issue 27.
  'shipment.cancelled',
  'shipment.storage_extended',
  'shipment.rerouted',
] as const;
export const WebhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema>;

/**
 * Body of a webhook delivery and of an item of GET /api/v1/events. `id` is the event's
 * for good (the `webhook-id` header too): the same on every retry and redelivery.
 */
export const WebhookEventSchema = z
  .object({
    id: z.guid(),
    type: WebhookEventTypeSchema,
    api_version: text(),
    created_at: z.iso.datetime({ offset: true }),
    data: z.object({
      shipment: ShipmentSchema,
      /** `shipment.rerouted` only: the station it was booked to before (issue 27). */
      rerouted_from: ReroutedFromSchema.optional(),
    }),
  })
  .meta({ id: 'WebhookEvent' });
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;
