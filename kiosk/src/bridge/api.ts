import type { CabinetResponse, TerminalConfig } from '@locker/shared';
import type { OverflowApi } from './overflow';
import type { TechnicianApi } from './technician';

// The one interface between the touchscreen and the kiosk core. Electron's preload and
// the browser host both implement it; the renderer only ever sees this. Everything the
// screen shows about a door or the service is decided in the core and carried here: the
// renderer never judges a sensor reading or a failed call by itself.

/** Why a request to the service did not do what was asked, as the screen must tell it. */
export type Refusal =
  | { kind: 'invalid_code' }
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  /** The service did not answer, answered something unusable, or refused this terminal. */
  | { kind: 'unavailable' }
  | { kind: 'courier_not_verified' }
  | { kind: 'not_found' }
  /** `size`: the parcel's size, from the problem body's `parcel_size` (extension). */
  | { kind: 'cabinet_full'; size: string | null }
  /** The unlock went out and the door was never seen open: reported, out of service. */
  | { kind: 'door_failed'; door: number }
  /**
   * Nothing was sent: the door's board cannot be trusted (every door of it reads open at
   * once: its polarity is suspect). Reported; the door is out of service until a
   * technician looked.
   */
  | { kind: 'door_out_of_service'; door: number };

/**
 * The door was unlocked and seen open, or found already open (`foundOpen`: nothing was
 * sent, it stood open before; the staff are told): `state.session` follows it.
 */
export type DoorOpened = {
  kind: 'door_open';
  door: number;
  foundOpen?: true;
  /** A pickup whose door holds more than one parcel for this code (issue 27): how many. */
  parcels?: number;
};
/**
 * The unlock went out but the controller fell silent: the door may be open. The session
 * (phase `unknown`) keeps watching and moves on as soon as the sensors answer again.
 */
export type DoorUnknown = { kind: 'door_unknown'; door: number; parcels?: number };

export type PickupResult = DoorOpened | DoorUnknown | Refusal;
/**
 * Issue 27: whether the parcel scanned may go in the door of the visit's previous parcel
 * (the same person, and it fits). Anything else, the service unreachable included, is
 * `not_shareable`: the kiosk then simply gives it a door of its own.
 */
export type SharedDoorCheck =
  { kind: 'shareable'; door: number; parcelsInDoor: number } | { kind: 'not_shareable' };
export type DepositResult = DoorOpened | DoorUnknown | Refusal;
export type ReturnResult = DoorOpened | DoorUnknown | Refusal;
export type VerifyResult =
  | {
      kind: 'verified';
      courierName: string;
      /** Returns and expired parcels here for this courier to take out; null: not known. */
      toTakeOut: number | null;
    }
  | { kind: 'unknown' }
  | Refusal;
/** `id`: the collection's, as `state.collection` carries it. */
export type CollectResult = { kind: 'collecting'; count: number; id: number } | Refusal;
/** Stopping finishes the door that is open (it is never left open) and opens no other. */
export type StopCollectingResult = { kind: 'stopping' } | { kind: 'not_collecting' };
/** What a person says went wrong at the door they just used (help). */
export type DoorProblem = 'did_not_open' | 'will_not_close';
export const DOOR_PROBLEMS = ['did_not_open', 'will_not_close'] as const satisfies DoorProblem[];
/**
 * `sent`: the service has the report; `queued`: it is on disk and goes out when the
 * service is back; `already_reported`: the core saw the door fail and reported it itself;
 * `no_door`: no door was used this visit (advice only); `unavailable`: the core failed.
 */
export type DoorProblemResult =
  | { kind: 'unavailable' }
  | { kind: 'sent'; door: number }
  | { kind: 'queued'; door: number }
  | { kind: 'already_reported'; door: number }
  | { kind: 'no_door' };
/** Only a return whose door is open (or left open) can be cancelled. */
export type CancelReturnResult = { kind: 'take_out_and_close' } | { kind: 'not_cancellable' };
/** Answers to the question asked when a cancelled return's door was shut on the parcel. */
export type ReturnChoiceResult =
  | { kind: 'finished' }
  | { kind: 'reopened' }
  | { kind: 'door_failed'; door: number }
  | { kind: 'door_unknown'; door: number }
  | { kind: 'no_choice_pending' };

export type CollectedKind = 'return' | 'expired';

/**
 * A courier taking out returns and expired parcels, one door after another:
 *   collecting (index 1..total) → ended finished
 *   collecting → stop asked → stopping (the open door is finished) → ended stopped
 *   collecting → controller gone → ended controller_down
 * `total - taken` parcels stay in the locker for later once it ended.
 */
export interface Collection {
  id: number;
  /** Parcels waiting when the courier started. */
  total: number;
  /** 1-based: the parcel whose door is worked on now ("2 of 5"); 0 before the first. */
  index: number;
  /** The parcel behind the current door. */
  parcel: { door: number; trackingNumber: string; kind: CollectedKind } | null;
  /** Doors seen shut and empty: those parcels are taken (reported through the queue). */
  taken: number;
  status: 'collecting' | 'stopping' | 'ended';
  ended: 'finished' | 'stopped' | 'controller_down' | null;
}

/**
 * Where the service's grid and a door's sensors disagree, which a technician must look
 * at: something inside a door the service counts as free, or a shut door that reads
 * empty where the service expects a parcel. Judged by the core, never by the screen.
 */
export type SensorMismatch = 'item_in_free_door' | 'empty_where_parcel_expected';

/** What the door sensors read right now, for the maintenance view. */
export type SensedDoor =
  | {
      position: number;
      known: true;
      closed: boolean;
      itemPresent: boolean;
      /** Against the service's grid as the core last received it; null: they agree. */
      mismatch: SensorMismatch | null;
    }
  /** Its board did not answer. */
  | { position: number; known: false };
export type SensorReading =
  | { kind: 'sensors'; doors: SensedDoor[] }
  /** The controller as a whole is not reachable (cable, power, port). */
  | { kind: 'board_unreachable' };

/** `remote`: a door opened by an operator or a technician over the live link. */
export type SessionKind = 'pickup' | 'deposit' | 'return' | 'collect' | 'remote';
/**
 * What the door should hold once shut: a pickup or collection empties it, a deposit or
 * return fills it; a remote open expects nothing (whoever opened it knows why).
 */
export type Expectation = 'item' | 'empty' | 'any';

/** A door opened remotely, as the screen tells it: by whom, and its session. */
export interface RemoteOpen {
  by: 'operator' | 'technician';
  session: DoorSession;
}

/**
 * The door-session state machine. Normal path:
 *   unlocking → open (→ left_open) → closed → reported
 * `closed` is the sensor reading, `reported` once the report is on disk in the durable
 * queue (it reaches the service whenever the service is reachable). Failures:
 *   unlocking → did_not_open   (reported as a door fault; the door leaves service)
 *   unlocking → unknown        (controller silent after the pulse; watching goes on and
 *                               moves to open/closed when it answers, never a second pulse)
 * Return cancel (only while the door is open or left open):
 *   open → take_out_and_close → closed empty → cancelled (hold released)
 *                             → closed with item → closed_with_item_choice
 *   closed_with_item_choice → finishReturn() → reported (deposited)
 *                           → reopenReturn() → unlocking → open → take_out_and_close …
 * A door holding an item is never released.
 */
export type DoorPhase =
  | { phase: 'unlocking' }
  | { phase: 'open' }
  /** Open longer than the configured close timeout; still watched. */
  | { phase: 'left_open' }
  | { phase: 'unknown' }
  | { phase: 'did_not_open' }
  | { phase: 'closed'; itemPresent: boolean; asExpected: boolean }
  | { phase: 'reported'; itemPresent: boolean; asExpected: boolean }
  /** Return cancelled while open: the customer takes the parcel out and shuts the door. */
  | { phase: 'take_out_and_close' }
  /** Return cancelled, but the door was shut with the parcel inside: finish or reopen. */
  | { phase: 'closed_with_item_choice' }
  /** Return cancelled, the door seen shut and empty: the hold is released. */
  | { phase: 'cancelled' }
  /**
   * A parcel taken out (a pickup, a courier's take-out) the kiosk cannot confirm by itself:
   * the door was found open at the unlock, never seen shut, or never seen open. Reported
   * for the service to settle; the staff are told. `itemPresent`: the sensor's last word.
   */
  | { phase: 'unsettled'; itemPresent: boolean | null; cause: UnsettledCause };
export type UnsettledCause = 'found_open' | 'never_shut' | 'not_seen_open';
export type DoorPhaseName = DoorPhase['phase'];

export type DoorSession = {
  /** Grows by one per session: tells a new session at the same door from the last. */
  id: number;
  kind: SessionKind;
  door: number;
  expect: Expectation;
  /** True while the core still drives or watches this door (never idle out meanwhile). */
  active: boolean;
  /** When the session entered its current phase (ISO 8601). */
  since: string;
  /**
   * The door already stood open at the unlock (nothing was sent), with what its item
   * sensor read then; absent when it was shut. Reported to the service as found open.
   */
  foundOpen?: { itemPresent: boolean };
} & DoorPhase;

/**
 * How far the kiosk can serve, most serious first:
 * - terminal_refused: the service refused this terminal's token on a heartbeat (401):
 *   disabled or revoked by an operator; only an operator can clear it.
 * - service_unreachable: the last call got no usable answer (network, timeout, 5xx).
 * - controller_unreachable: the door controller does not answer at all.
 * - doors_untrusted: every door reads open at once on every board (suspect hook
 *   polarity): nothing can be opened safely until a technician looked.
 * - degraded: some boards do not answer (their doors are unknown), or some boards' polarity
 *   is suspect (their doors are out of service: `suspectDoors`).
 * Each clears by itself when its cause clears (the kiosk keeps trying).
 */
export type ServiceCondition =
  | 'ok'
  | 'service_unreachable'
  | 'terminal_refused'
  | 'controller_unreachable'
  | 'doors_untrusted'
  | 'degraded';

export interface KioskState {
  condition: ServiceCondition;
  /** When the condition last changed (ISO 8601), null before the first judgement. */
  conditionSince: string | null;
  /** Doors whose sensors cannot be read now (their board is silent). */
  unknownDoors: number[];
  /** Doors of boards whose polarity is suspect: the kiosk opens none of them. */
  suspectDoors: number[];
  /** The last configuration the service sent; at boot, the one kept from the last run. */
  config: TerminalConfig | null;
  /** Where `config` came from: this run's heartbeat, or the cache of an earlier run. */
  configSource: 'service' | 'cache' | null;
  cabinet: CabinetResponse | null;
  /** Door positions per physical column, top to bottom, left to right (cabinet file). */
  layout: { columns: number[][] } | null;
  session: DoorSession | null;
  /** The courier's take-out under way or last ended; null before any. */
  collection: Collection | null;
  /** Reports waiting in the durable queue. */
  pendingReports: number;
  /** Reports that could not be delivered within 7 days, kept aside for operations. */
  stuckReports: number;
  /** The latest door opened over the live link; the screen says who opened it. */
  remoteOpen: RemoteOpen | null;
  /**
   * Grows by one each time the service asks the screen to reload (over the live link):
   * a renderer that sees it grow past the value it started with reloads itself.
   */
  screenReloads: number;
  /** The live link to the service: `off` when the configuration turns it off. */
  link: 'off' | 'connected' | 'disconnected';
  /**
   * The service cannot be reached and the locker works on its own with what it kept
   * (docs/terminal-extensions.md, "Offline operation"): which tasks it still does. Null
   * whenever it is not working on its own.
   */
  onItsOwn: OnItsOwn | null;
}

/** What a locker working on its own still does: pickups by code; deposits by couriers. */
export interface OnItsOwn {
  pickup: boolean;
  deposit: boolean;
}

/** Before the first heartbeat: nothing known, nothing queued. */
export const INITIAL_STATE: KioskState = {
  condition: 'ok',
  conditionSince: null,
  unknownDoors: [],
  suspectDoors: [],
  config: null,
  configSource: null,
  cabinet: null,
  layout: null,
  session: null,
  collection: null,
  pendingReports: 0,
  stuckReports: 0,
  remoteOpen: null,
  screenReloads: 0,
  link: 'off',
  onItsOwn: null,
};

/** The conditions in which nothing that needs the service can work. */
export function outOfService(condition: ServiceCondition): boolean {
  switch (condition) {
    case 'service_unreachable':
    case 'terminal_refused':
    case 'controller_unreachable':
    case 'doors_untrusted':
      return true;
    case 'ok':
    case 'degraded':
      return false;
    default: {
      const unknown: never = condition;
      throw new Error(`unknown condition ${String(unknown)}`);
    }
  }
}

export interface KioskApi extends TechnicianApi, OverflowApi {
  getState(): Promise<KioskState>;
  pickup(code: string): Promise<PickupResult>;
  verifyCourier(courierNo: string): Promise<VerifyResult>;
  deposit(courierNo: string, trackingNumber: string): Promise<DepositResult>;
  /** Issue 27: may this parcel join `door`, where the courier just put a parcel? */
  checkSharedDoor(
    courierNo: string,
    trackingNumber: string,
    door: number,
  ): Promise<SharedDoorCheck>;
  /** Issue 27: the parcel joins `door` (the courier said yes); the door opens again. */
  depositShared(courierNo: string, trackingNumber: string, door: number): Promise<DepositResult>;
  startReturn(trackingNumber: string): Promise<ReturnResult>;
  /** The customer gives up while the return door is open: take the parcel out, shut it. */
  cancelReturn(): Promise<CancelReturnResult>;
  /** A cancelled return's door was shut on the parcel: record the return after all. */
  finishReturn(): Promise<ReturnChoiceResult>;
  /** A cancelled return's door was shut on the parcel: open it again to take it out. */
  reopenReturn(): Promise<ReturnChoiceResult>;
  /**
   * A courier takes out the returns waiting here: their doors open one after another,
   * each once the previous one was closed. Answers how many there are.
   */
  collectReturns(courierNo: string): Promise<CollectResult>;
  /** The courier stops taking out: the open door is finished, the rest stay for later. */
  stopCollecting(): Promise<StopCollectingResult>;
  /**
   * Help: the person says the door they just used did not open or will not close. The
   * door is reported as faulty through the durable queue (it leaves service, an operator
   * is alerted). Only the door on screen (the latest session) can be reported.
   */
  reportDoorProblem(problem: DoorProblem): Promise<DoorProblemResult>;
  /** For technicians: every door's sensors as the board reads them now. Opens nothing. */
  readSensors(): Promise<SensorReading>;
}

export type KioskMethod = keyof KioskApi;
export const KIOSK_METHODS = [
  'getState',
  'pickup',
  'verifyCourier',
  'deposit',
  'checkSharedDoor',
  'depositShared',
  'depositAlternatives',
  'rerouteDeposit',
  'startReturn',
  'cancelReturn',
  'finishReturn',
  'reopenReturn',
  'collectReturns',
  'stopCollecting',
  'reportDoorProblem',
  'readSensors',
  'technicianLogin',
  'enrol',
] as const satisfies readonly KioskMethod[];

// Compile-time: a method added to KioskApi but not listed above fails here.
type Unlisted = Exclude<KioskMethod, (typeof KIOSK_METHODS)[number]>;
const everyMethodListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyMethodListed;
