import { z } from 'zod';
import { SizeSchema, text } from './common';

// Overflow (issue 27): a courier at a full station takes the parcel to the nearest station
// with room instead. Extensions of the terminal interface (docs/terminal-extensions.md);
// the spec's POST /deposit and its 409 `cabinet_full` are unchanged.

const CourierNoField = text().min(1).max(64);
const TrackingNumberField = text().min(1).max(64);

/** POST /terminal/v1/deposit/alternatives: where else this parcel could go. */
export const DepositAlternativesRequestSchema = z
  .strictObject({ courierNo: CourierNoField, trackingNumber: TrackingNumberField })
  .meta({ id: 'DepositAlternativesRequest' });
export type DepositAlternativesRequest = z.infer<typeof DepositAlternativesRequestSchema>;

/** A station the courier may take the parcel to, as the kiosk shows it. */
export const OverflowStationSchema = z
  .object({
    code: text(),
    name: text(),
    /** One line, as on an envelope; null when the operator has not set it. */
    address: text().nullable(),
    /** From this station, great-circle, metres. */
    distance_m: z.number().int(),
  })
  .meta({ id: 'OverflowStation' });
export type OverflowStation = z.infer<typeof OverflowStationSchema>;

export const DepositAlternativesResponseSchema = z
  .object({
    trackingNumber: text(),
    parcel_size: SizeSchema,
    /**
     * Nearest first, at most 3, each with a door free now that the parcel fits (within
     * reach when the booking asked for it). Empty when this station has no coordinates or
     * nothing near has room.
     */
    stations: z.array(OverflowStationSchema),
  })
  .meta({ id: 'DepositAlternativesResponse' });
export type DepositAlternativesResponse = z.infer<typeof DepositAlternativesResponseSchema>;

/** POST /terminal/v1/deposit/reroute: the parcel goes to `stationCode` instead. */
export const DepositRerouteRequestSchema = z
  .strictObject({
    courierNo: CourierNoField,
    trackingNumber: TrackingNumberField,
    stationCode: text().min(1).max(64),
  })
  .meta({ id: 'DepositRerouteRequest' });
export type DepositRerouteRequest = z.infer<typeof DepositRerouteRequestSchema>;

export const DepositRerouteResponseSchema = z
  .object({
    ok: z.literal(true),
    trackingNumber: text(),
    /** Where the courier takes the parcel now. */
    station: OverflowStationSchema,
    /** A door there is held for the parcel until then. */
    held_until: z.iso.datetime({ offset: true }),
    /** The recipient's SMS naming the new station is queued (false: a sandbox's, set aside). */
    recipient_notified: z.boolean(),
  })
  .meta({ id: 'DepositRerouteResponse' });
export type DepositRerouteResponse = z.infer<typeof DepositRerouteResponseSchema>;

/**
 * `data.rerouted_from` of a `shipment.rerouted` event: the station the parcel was
 * booked to before (the shipment itself names the new one).
 */
export const ReroutedFromSchema = z.object({
  station_id: z.guid(),
  station_code: text(),
});
export type ReroutedFrom = z.infer<typeof ReroutedFromSchema>;
