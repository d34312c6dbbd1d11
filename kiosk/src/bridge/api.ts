import type { CabinetResponse, TerminalConfig } from '@locker/shared';
import type { TechnicianApi } from './technician';

// The one interface between the touchscreen and the kiosk core. Electron's preload and
// the browser host both implement it; the renderer only ever sees this.

/** Why a request to the service did not do what was asked, as the screen must tell it. */
export type Refusal =
  | { kind: 'invalid_code' }
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  | { kind: 'unavailable' }
  | { kind: 'courier_not_verified' }
  | { kind: 'not_found' }
  | { kind: 'cabinet_full'; size: string | null }
  | { kind: 'door_failed'; door: number };

export type DoorOpened = { kind: 'door_open'; door: number };

/** What the door sensors read right now, for the maintenance view. */
export type SensorReading =
  | { kind: 'sensors'; doors: { position: number; closed: boolean; itemPresent: boolean }[] }
  | { kind: 'board_unreachable' };

/** The door a customer or courier is working at, as the screen shows it. */
export interface DoorSession {
  kind: 'pickup' | 'deposit' | 'return' | 'collect';
  door: number;
  phase: 'open' | 'closed' | 'left_open';
  /** Set when the door was closed: what the sensors saw. */
  itemPresent?: boolean;
}

export interface KioskState {
  /** The last heartbeat got through. */
  online: boolean;
  config: TerminalConfig | null;
  cabinet: CabinetResponse | null;
  session: DoorSession | null;
  /** Confirms waiting in the offline queue. */
  pendingConfirms: number;
  /** Confirms that could not be delivered within 7 days, kept aside for operations. */
  stuckConfirms: number;
}

/** Before the first heartbeat: nothing known, nothing queued. */
export const INITIAL_STATE: KioskState = {
  online: false,
  config: null,
  cabinet: null,
  session: null,
  pendingConfirms: 0,
  stuckConfirms: 0,
};

export interface KioskApi extends TechnicianApi {
  getState(): Promise<KioskState>;
  pickup(code: string): Promise<DoorOpened | Refusal>;
  verifyCourier(
    courierNo: string,
  ): Promise<{ kind: 'verified'; courierName: string } | { kind: 'unknown' } | Refusal>;
  deposit(courierNo: string, trackingNumber: string): Promise<DoorOpened | Refusal>;
  startReturn(trackingNumber: string): Promise<DoorOpened | Refusal>;
  /** The customer gave up: the return door is released once it is closed. */
  cancelReturn(): Promise<{ kind: 'cancelled' }>;
  /**
   * A courier takes out the returns waiting here: their doors open one after another,
   * each once the previous one was closed empty. Answers how many there are.
   */
  collectReturns(courierNo: string): Promise<{ kind: 'collecting'; count: number } | Refusal>;
  /** For technicians: every door's sensors as the board reads them now. Opens nothing. */
  readSensors(): Promise<SensorReading>;
}

export type KioskMethod = keyof KioskApi;
export const KIOSK_METHODS = [
  'getState',
  'pickup',
  'verifyCourier',
  'deposit',
  'startReturn',
  'cancelReturn',
  'collectReturns',
  'readSensors',
  'technicianLogin',
] as const satisfies readonly KioskMethod[];
