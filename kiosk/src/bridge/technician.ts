/** The technician's way into the service menu, as the bridge carries it. */
export type TechnicianLogin =
  | { kind: 'granted' }
  /** Wrong PIN; after several, the core refuses every PIN for a while. */
  | { kind: 'refused'; retryAfterSeconds: number }
  /** The kiosk configuration holds no technician PIN: the menu stays shut. */
  | { kind: 'not_configured' };

/** The service menu's enrolment with the operator's one-time code. */
export type EnrolResult =
  /** The kiosk has its own token now, and the station it is bound to. */
  | { kind: 'enrolled'; station: { code: string; name: string } }
  /** The service's sentence: a wrong, used or expired code, too many attempts, no network. */
  | { kind: 'refused'; message: string }
  /** The PIN given with the code is not the technician's. */
  | { kind: 'not_allowed' };

export interface TechnicianApi {
  technicianLogin(pin: string): Promise<TechnicianLogin>;
  /** The technician's PIN again (the core trusts no screen), and the code as typed. */
  enrol(pin: string, code: string): Promise<EnrolResult>;
}
