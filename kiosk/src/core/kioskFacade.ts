import { EventEmitter } from 'node:events';
import type {
  CancelReturnResult,
  CollectResult,
  DepositResult,
  SharedDoorCheck,
  DoorProblem,
  DoorProblemResult,
  KioskApi,
  KioskState,
  PickupResult,
  Refusal,
  ReturnChoiceResult,
  ReturnResult,
  SensorReading,
  StopCollectingResult,
  VerifyResult,
} from '../bridge/api';
import type { EnrolResult, TechnicianLogin } from '../bridge/technician';
import type { AlternativesResult, RerouteResult } from '../bridge/overflow';
import { depositAlternatives, rerouteDeposit } from './overflow';
import { EnrolmentError } from './enrolment';
import type { CollectFlow } from './collectFlow';
import type { ReportQueue } from './reportQueue';
import type { DoorFlows } from './doorFlows';
import type { KioskStateStore } from './kioskState';
import type { KioskLog } from './log';
import type { OfflineDeposits } from './offlineDeposit';
import type { OfflinePickups } from './offlinePickup';
import { refusalOf } from './refusal';
import { checkSharedDoor, depositShared, sharedDoorOthers } from './sharedDoorFlow';
import type { ServiceLink } from './serviceLink';
import type { SessionTracker } from './sessions';
import type { TechnicianGate } from './technician';

/** The parts of the kiosk the bridge's requests reach. */
export interface FacadeParts {
  store: KioskStateStore;
  link: ServiceLink;
  queue: ReportQueue;
  flows: DoorFlows;
  collection: CollectFlow;
  sessions: SessionTracker;
  technician: TechnicianGate;
  /** Every door's sensors now; also refreshes the controller's condition. */
  readSensors(): Promise<SensorReading>;
  log: KioskLog;
  /** Pickups while the service cannot be reached (offlinePickup.ts). */
  offline: OfflinePickups;
  /** Couriers' deposits while the service cannot be reached (offlineDeposit.ts). */
  deposits: OfflineDeposits;
}

/** No answer from the service at all (network, timeout, a gateway's 502/503/504). */
function unreachable(failure: { status: number; code: string | null }): boolean {
  return (
    (failure.status === 0 && failure.code === 'network') || [502, 503, 504].includes(failure.status)
  );
}

/**
 * What the bridge calls (`KioskApi`): each request of the screen, turned into calls to the
 * service and door flows, answered as a result the screen can show. It emits 'state'
 * whenever what the screen shows may have changed. No method throws: every failure
 * becomes a refusal or a phase the screen can show.
 */
export class KioskFacade extends EventEmitter implements KioskApi {
  readonly log: KioskLog;

  /** When a person last did anything on the screen (ms): updates wait for quiet. */
  lastActivityAt = Date.now();

  constructor(protected readonly parts: FacadeParts) {
    super();
    this.log = parts.log;
    parts.store.on('state', (state) => this.emit('state', state));
  }

  /** Every request of the screen but reading its state is someone at the screen. */
  protected touched(): void {
    this.lastActivityAt = Date.now();
  }

  /** Any failure of a screen's request ends as a refusal, logged, never a rejection. */
  private async guarded<T>(
    what: string,
    run: () => Promise<T>,
  ): Promise<T | { kind: 'unavailable' }> {
    try {
      return await run();
    } catch (error) {
      this.log.error({ error: String(error), request: what }, 'request failed');
      return { kind: 'unavailable' };
    }
  }

  getState(): Promise<KioskState> {
    return Promise.resolve(this.parts.store.state);
  }

  /**
   * Online, the service checks the code. Unreachable (already, or on this very call), and
   * with the station's verifiers kept, the kiosk checks it on its own (offlinePickup.ts):
   * same limit, same refusal, same door session. Back online, what the queue holds goes
   * first, and a parcel this kiosk handed out on its own is never offered again.
   */
  pickup(code: string): Promise<PickupResult> {
    this.touched();
    const { link, flows, offline, store, queue } = this.parts;
    return this.guarded('pickup', async () => {
      if (!store.serviceReachable && !store.refused && offline.ready) return offline.pickup(code);
      if (queue.pending() > 0) await queue.replay();
      offline.countOnline();
      const answer = await link.serve(() => link.client.pickup(code));
      if (!answer.ok) {
        if (unreachable(answer) && !store.refused && offline.ready)
          return offline.pickup(code, true);
        return refusalOf(answer);
      }
      const { door, shipmentId, trackingNumber } = answer.value;
      if (offline.handedOut(shipmentId)) return { kind: 'invalid_code' as const };
      // Barred before the door opens: the shared door's other parcels with it.
      const others = await sharedDoorOthers(link, shipmentId);
      const parcels = [shipmentId, ...others.map((o) => o.shipmentId)];
      let barredAt: number | null = null;
      this.kept('pickup set', () => (barredAt = offline.bar(door, parcels)));
      // Issue 27: the door may hold more parcels for this code; each is confirmed on its own.
      const result = await flows.pickup(door, { shipmentId, trackingNumber }, others);
      const at = barredAt;
      if (at !== null && (result.kind === 'door_failed' || result.kind === 'unavailable'))
        this.kept('pickup set', () => offline.unbar(door, parcels, at));
      return result;
    });
  }

  /** The service cannot be reached, but the kiosk kept what `ready` says it needs. */
  private alone(ready: boolean): boolean {
    const { store } = this.parts;
    return !store.serviceReachable && !store.refused && ready;
  }

  verifyCourier(courierNo: string): Promise<VerifyResult> {
    this.touched();
    const { link, deposits, store } = this.parts;
    return this.guarded('verifyCourier', async () => {
      if (this.alone(deposits.ready)) return deposits.verifyCourier(courierNo);
      const answer = await link.serve(() => link.client.verifyCourier(courierNo));
      if (!answer.ok) {
        if (unreachable(answer) && !store.refused && deposits.ready)
          return deposits.verifyCourier(courierNo);
        return refusalOf(answer);
      }
      if (!answer.value.ok || answer.value.courierName === null)
        return { kind: 'unknown' as const };
      deposits.verifiedOnline(courierNo);
      // Shown at sign-in ("Parcels to take out: N"); the sign-in stands without it.
      const waiting = await link.serve(() => link.client.courierReturns(courierNo));
      return {
        kind: 'verified' as const,
        courierName: answer.value.courierName,
        toTakeOut: waiting.ok ? waiting.value.parcels.length : null,
      };
    });
  }

  /**
   * Online, the service chooses the door. Unreachable, with the station's deposit set kept,
   * the kiosk chooses it by the same rule from what it knows (offlineDeposit.ts) and the
   * same door session opens it; the deposit is reported through the queue.
   */
  deposit(courierNo: string, trackingNumber: string): Promise<DepositResult> {
    this.touched();
    const { link, flows, deposits, sessions, store } = this.parts;
    return this.guarded('deposit', async () => {
      let alone = false;
      const result = await flows.deposit({ courierNo, trackingNumber }, async () => {
        if (this.alone(deposits.ready)) {
          alone = true;
          return this.takenInAlone(courierNo, trackingNumber);
        }
        const answer = await link.serve(() => link.client.deposit(courierNo, trackingNumber));
        if (answer.ok) {
          this.emptyDoorFilled(answer.value.door, trackingNumber);
          return answer.value.door;
        }
        if (unreachable(answer) && !store.refused && deposits.ready) {
          alone = true;
          return this.takenInAlone(courierNo, trackingNumber);
        }
        return refusalOf(answer);
      });
      if (!alone || !deposits.deposit(trackingNumber)) return result;
      const session = sessions.current('deposit');
      if ((result.kind === 'door_open' || result.kind === 'door_unknown') && session)
        deposits.follow(session.id, trackingNumber);
      else if (result.kind === 'door_failed') deposits.undone(trackingNumber, true);
      else if (result.kind === 'unavailable') deposits.undone(trackingNumber);
      return result;
    });
  }

  /**
   * The service recorded a change at this station through this kiosk: its deposit set
   * follows (offlineDeposit.ts `changedOnline`). The service's word already stands, so a
   * failure to note it here (the disk) is logged and the flow goes on to its door (as a
   * pickup's note to the pickup set).
   */
  private changedOnline(change: { door?: number; trackingNumber?: string }): void {
    this.kept('deposit set', () => this.parts.deposits.changedOnline(change));
  }

  /** A deposit on the kiosk's own: the door it chose opens for no old code of the pickup set. */
  private takenInAlone(courierNo: string, trackingNumber: string): number | Refusal {
    const door = this.parts.deposits.assign(courierNo, trackingNumber);
    if (typeof door === 'number') this.kept('pickup set', () => this.parts.offline.bar(door));
    return door;
  }

  /**
   * An empty door the service gave through this kiosk to a deposit (`trackingNumber`) or
   * a return: taken in the deposit set, and no code of the pickup set opens it any more.
   */
  private emptyDoorFilled(door: number, trackingNumber?: string): void {
    this.changedOnline({ door, trackingNumber });
    this.kept('pickup set', () => this.parts.offline.bar(door));
  }

  /** A note to an offline set (`what`) of a change the service made: logged if it fails. */
  private kept(what: string, note: () => void): void {
    try {
      note();
    } catch (error) {
      this.log.error({ error: String(error) }, `${what} not updated`);
    }
  }

  /** Issue 27 (sharedDoorFlow.ts): only online; any failure is "no", never a refusal. */
  async checkSharedDoor(
    courierNo: string,
    trackingNumber: string,
    door: number,
  ): Promise<SharedDoorCheck> {
    this.touched();
    const { link, store } = this.parts;
    const answer = await this.guarded('checkSharedDoor', () =>
      checkSharedDoor(link, store.serviceReachable, { courierNo, trackingNumber, door }),
    );
    return answer.kind === 'unavailable' ? { kind: 'not_shareable' } : answer;
  }

  /** Issue 27: the parcel joins `door` through the deposit's own door session. */
  depositShared(courierNo: string, trackingNumber: string, door: number): Promise<DepositResult> {
    this.touched();
    const { link, flows } = this.parts;
    return this.guarded('depositShared', () =>
      depositShared(link, flows, { courierNo, trackingNumber, door }, (joined) =>
        this.changedOnline({ door: joined, trackingNumber }),
      ),
    );
  }

  /** Online only (overflow.ts): a locker on its own cannot move a booking. */
  depositAlternatives(courierNo: string, trackingNumber: string): Promise<AlternativesResult> {
    this.touched();
    return this.guarded('depositAlternatives', () =>
      depositAlternatives(this.parts.link, courierNo, trackingNumber),
    );
  }

  rerouteDeposit(
    courierNo: string,
    trackingNumber: string,
    stationCode: string,
  ): Promise<RerouteResult> {
    this.touched();
    return this.guarded('rerouteDeposit', async () => {
      const result = await rerouteDeposit(this.parts.link, courierNo, trackingNumber, stationCode);
      if (result.kind === 'rerouted') this.changedOnline({ trackingNumber });
      return result;
    });
  }

  startReturn(trackingNumber: string): Promise<ReturnResult> {
    this.touched();
    const { link, flows } = this.parts;
    return this.guarded('startReturn', async () => {
      const answer = await link.serve(() => link.client.startReturn(trackingNumber));
      if (!answer.ok) return refusalOf(answer);
      this.emptyDoorFilled(answer.value.door);
      return flows.startReturn(answer.value.door, answer.value.returnId, trackingNumber);
    });
  }

  cancelReturn(): Promise<CancelReturnResult> {
    this.touched();
    return Promise.resolve(this.parts.flows.cancelReturn());
  }

  finishReturn(): Promise<ReturnChoiceResult> {
    this.touched();
    return this.parts.flows.choose('finish');
  }

  reopenReturn(): Promise<ReturnChoiceResult> {
    this.touched();
    return this.parts.flows.choose('reopen');
  }

  collectReturns(courierNo: string): Promise<CollectResult> {
    this.touched();
    const { link, collection } = this.parts;
    return this.guarded('collectReturns', async () => {
      const answer = await link.serve(() => link.client.courierReturns(courierNo));
      if (!answer.ok) return refusalOf(answer);
      const started = collection.start(courierNo, answer.value.parcels);
      return { kind: 'collecting' as const, count: started.total, id: started.id };
    });
  }

  stopCollecting(): Promise<StopCollectingResult> {
    this.touched();
    return Promise.resolve(this.parts.collection.stop());
  }

  /**
   * Reported as a door fault through the durable queue, then sent at once if the service
   * answers: the person is told whether it got through or waits on disk for the service.
   */
  reportDoorProblem(problem: DoorProblem): Promise<DoorProblemResult> {
    this.touched();
    const { sessions, flows, queue } = this.parts;
    return this.guarded('reportDoorProblem', async () => {
      const session = sessions.current();
      if (!session) return { kind: 'no_door' as const };
      const door = session.door;
      // The core saw it fail and has reported it already: never twice.
      if (problem === 'did_not_open' && session.phase === 'did_not_open')
        return { kind: 'already_reported' as const, door };
      const id = flows.reportFault(door, problem);
      this.log.warn({ alert: 'door_reported', door, problem }, 'a customer reports the door');
      await queue.replay();
      return queue.isPending(id)
        ? { kind: 'queued' as const, door }
        : { kind: 'sent' as const, door };
    });
  }

  /** For technicians: every door's sensors now; also refreshes the controller's condition. */
  readSensors(): Promise<SensorReading> {
    this.touched();
    return this.parts.readSensors();
  }

  /** The service menu's PIN, checked against the configuration's hash; opens nothing. */
  technicianLogin(pin: string): Promise<TechnicianLogin> {
    this.touched();
    return Promise.resolve(this.parts.technician.login(pin));
  }

  /** The service menu's enrolment: only with the technician's PIN, checked here. */
  async enrol(pin: string, code: string): Promise<EnrolResult> {
    this.touched();
    if (this.parts.technician.login(pin).kind !== 'granted') return { kind: 'not_allowed' };
    try {
      return { kind: 'enrolled', station: await this.parts.link.enrol(code) };
    } catch (error) {
      if (error instanceof EnrolmentError) return { kind: 'refused', message: error.message };
      this.log.error({ error: String(error) }, 'enrolment failed');
      return { kind: 'refused', message: 'The kiosk could not store its token; see its log.' };
    }
  }
}
