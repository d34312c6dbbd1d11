import { z } from 'zod';
import { INT4_MAX, OccurredAtSchema, SizeSchema, text } from './common';

// Part A of the interface: every body is strict, as the spec says "all bodies reject
// unknown fields".

export const StationSchema = z.strictObject({ code: text(), name: text() });

export const DoorParcelSchema = z.strictObject({
  trackingNumber: text(),
  /** First word of the recipient's name; the listing never carries more of the person. */
  recipientFirstName: text(),
  kind: z.enum(['delivery', 'return']),
});

export const DOOR_STATUSES = ['available', 'occupied', 'out_of_service'] as const;
export const DoorStatusSchema = z.enum(DOOR_STATUSES);
export type DoorStatus = z.infer<typeof DoorStatusSchema>;

export const DoorSchema = z.strictObject({
  /** Vendor slot number: the physical door. */
  position: z.number().int(),
  code: text().nullable(),
  size: SizeSchema.nullable(),
  status: DoorStatusSchema,
  parcel: DoorParcelSchema.nullable(),
});
export type Door = z.infer<typeof DoorSchema>;

export const CabinetResponseSchema = z.strictObject({
  station: StationSchema,
  doors: z.array(DoorSchema),
});
export type CabinetResponse = z.infer<typeof CabinetResponseSchema>;

export const PickupRequestSchema = z.strictObject({
  /** Digits as typed on the keypad; issued codes have eight. */
  code: text().min(1).max(10),
});
export type PickupRequest = z.infer<typeof PickupRequestSchema>;

export const PickupResponseSchema = z.strictObject({
  ok: z.literal(true),
  door: z.number().int(),
  trackingNumber: text(),
  /** Pass back to `/door/confirm`; never shown on screen. */
  shipmentId: z.guid(),
});
export type PickupResponse = z.infer<typeof PickupResponseSchema>;

export const DoorConfirmRequestSchema = z.strictObject({
  shipmentId: z.guid(),
  collected: z.boolean(),
  occurred_at: OccurredAtSchema.optional(),
});
export type DoorConfirmRequest = z.infer<typeof DoorConfirmRequestSchema>;

export const OkResponseSchema = z.strictObject({ ok: z.literal(true) });
export type OkResponse = z.infer<typeof OkResponseSchema>;

export const CourierVerifyRequestSchema = z.strictObject({
  courierNo: text().min(1).max(64),
});
export type CourierVerifyRequest = z.infer<typeof CourierVerifyRequestSchema>;

export const CourierVerifyResponseSchema = z.strictObject({
  ok: z.boolean(),
  courierName: text().nullable(),
});
export type CourierVerifyResponse = z.infer<typeof CourierVerifyResponseSchema>;

const TrackingNumberField = text().min(1).max(64);

export const DepositRequestSchema = z.strictObject({
  courierNo: text().min(1).max(64),
  trackingNumber: TrackingNumberField,
  occurred_at: OccurredAtSchema.optional(),
});
export type DepositRequest = z.infer<typeof DepositRequestSchema>;

export const DepositResponseSchema = z.strictObject({
  ok: z.literal(true),
  door: z.number().int(),
  trackingNumber: text(),
});
export type DepositResponse = z.infer<typeof DepositResponseSchema>;

export const ReturnRequestSchema = z.strictObject({ trackingNumber: TrackingNumberField });
export type ReturnRequest = z.infer<typeof ReturnRequestSchema>;

export const ReturnResponseSchema = z.strictObject({
  ok: z.literal(true),
  door: z.number().int(),
  trackingNumber: text(),
  returnId: z.guid(),
});
export type ReturnResponse = z.infer<typeof ReturnResponseSchema>;

export const ReturnConfirmRequestSchema = z.strictObject({
  returnId: z.guid(),
  deposited: z.boolean(),
  occurred_at: OccurredAtSchema.optional(),
});
export type ReturnConfirmRequest = z.infer<typeof ReturnConfirmRequestSchema>;

export const HeartbeatRequestSchema = z.strictObject({
  appVersion: text().max(64).optional(),
});
export type HeartbeatRequest = z.infer<typeof HeartbeatRequestSchema>;

/** Terminal configuration: applied by the kiosk as received on every heartbeat. */
export const TerminalConfigSchema = z.strictObject({
  station_code: text(),
  support_phone: text(),
  idle_timeout_seconds: z.number().int(),
  app_version: text().nullable(),
});
export type TerminalConfig = z.infer<typeof TerminalConfigSchema>;

/**
 * Extension (docs/terminal-extensions.md): a door the kiosk unlocked but never saw open, or
 * one a person reports will not close.
 */
export const DoorFaultRequestSchema = z.strictObject({
  position: z.number().int().min(1).max(INT4_MAX),
  /** Absent: did_not_open (the kiosk saw it, or the person says so). */
  problem: z.enum(['did_not_open', 'will_not_close']).optional(),
  /** When the door failed to open; the kiosk reports faults through its queue. */
  occurred_at: OccurredAtSchema.optional(),
});
export type DoorFaultRequest = z.infer<typeof DoorFaultRequestSchema>;

/** Extension: the deposited returns a courier can take out at this station. */
export const CourierReturnsRequestSchema = z.strictObject({ courierNo: text().min(1).max(64) });
export const CourierReturnsResponseSchema = z.strictObject({
  ok: z.literal(true),
  parcels: z.array(
    z.strictObject({
      door: z.number().int(),
      trackingNumber: text(),
      /** `return`: a customer's return; `expired`: a delivery left past the station's maximum storage time. */
      kind: z.enum(['return', 'expired']),
    }),
  ),
});
export type CourierReturnsResponse = z.infer<typeof CourierReturnsResponseSchema>;

/**
 * Extension: a courier took a return or an expired parcel out of its door (the door was
 * seen closed, empty). The body is a deposit's: who, which parcel, when.
 */
export const ReturnCollectedRequestSchema = DepositRequestSchema;

/**
 * Extension: the courier shut the door of a parcel just deposited without the parcel in
 * it (the sensor saw the door empty): the deposit is undone.
 */
export const DepositUndoRequestSchema = DepositRequestSchema;

/** What the kiosk was doing at a door: the door session's visit. */
export const VISITS = ['pickup', 'deposit', 'return', 'collect'] as const;

/**
 * Extension (docs/terminal-extensions.md, `POST /terminal/v1/doors/{door}/events`): what the
 * kiosk saw at a door that the service must hear of, from its door supervision.
 * - `found_open`: at an unlock the door already stood open; nothing was sent to it.
 * - `opened_unseen`: the door was seen open with no one using it (forced, propped, a delayed
 *   unlock); `cause: after_fault` when the kiosk had reported it as not opening.
 * - `unsettled`: a pickup (or a courier's take-out) the kiosk cannot confirm by itself:
 *   `cause` says why; the service settles it.
 * - `unlock_unknown`: the board fell silent after the unlock pulse: the door may or may
 *   not have opened (a brown-out); no fault.
 */
export const DOOR_EVENT_KINDS = [
  'found_open',
  'opened_unseen',
  'unsettled',
  'unlock_unknown',
] as const;
export const DoorEventRequestSchema = z.strictObject({
  /** The kiosk's id for this event: a resend is recorded once. */
  eventId: z.guid(),
  kind: z.enum(DOOR_EVENT_KINDS),
  /** The door's item sensor when the event was seen; null when the board was silent. */
  itemPresent: z.boolean().nullable(),
  /** The visit under way at the door; null when no one was using it. */
  visit: z.enum(VISITS).nullable(),
  /** The parcel the kiosk believes concerned: its visit's, or that of the visit whose door failed. */
  trackingNumber: text().min(1).max(64).optional(),
  shipmentId: z.guid().optional(),
  cause: z.enum(['found_open', 'never_shut', 'not_seen_open', 'after_fault']).optional(),
  occurred_at: OccurredAtSchema.optional(),
});
export type DoorEventRequest = z.infer<typeof DoorEventRequestSchema>;

/**
 * Extension (`POST /terminal/v1/cabinet/events`): what the kiosk found of a lock board.
 * - `suspect_polarity`: every door of the board reads open at once: most likely the hook
 *   polarity is wrong; the kiosk opens nothing on it, and the service takes its doors out
 *   of service.
 * - `board_changed`: the board's firmware or unlock time differs from what commissioning
 *   recorded (swapped, or reset to factory).
 */
export const CABINET_EVENT_KINDS = ['suspect_polarity', 'board_changed'] as const;
export const CabinetEventRequestSchema = z.strictObject({
  eventId: z.guid(),
  kind: z.enum(CABINET_EVENT_KINDS),
  /** The board's number on the bus (its DIP switches), 0-9. */
  board: z.number().int().min(0).max(9),
  /** The doors on that board, as the kiosk's cabinet file maps them. */
  positions: z.array(z.number().int().min(1).max(INT4_MAX)).max(16),
  /** `board_changed`: one sentence per setting that differs. */
  differences: z.array(text().min(1).max(300)).max(10).optional(),
  occurred_at: OccurredAtSchema.optional(),
});
export type CabinetEventRequest = z.infer<typeof CabinetEventRequestSchema>;
