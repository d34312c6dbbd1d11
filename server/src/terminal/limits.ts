/** Pickup attempts per terminal per minute; returns likewise. Spec, "Limits". */
export const PICKUP_LIMIT = 10;
export const RETURN_LIMIT = 20;
/**
 * Courier-number lookups (`/courier/verify`, `/courier/returns`) per terminal per minute:
 * an extension (docs/terminal-extensions.md). A courier types their number once per visit.
 */
export const COURIER_LIMIT = 10;
