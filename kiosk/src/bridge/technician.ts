/** The technician's way into the service menu, as the bridge carries it. */
export type TechnicianLogin =
  | { kind: 'granted' }
  /** Wrong PIN; after several, the core refuses every PIN for a while. */
  | { kind: 'refused'; retryAfterSeconds: number }
  /** The kiosk configuration holds no technician PIN: the menu stays shut. */
  | { kind: 'not_configured' };

export interface TechnicianApi {
  technicianLogin(pin: string): Promise<TechnicianLogin>;
}
