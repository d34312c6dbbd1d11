import { EventEmitter } from 'node:events';
import {
  INITIAL_STATE,
  type DoorOpened,
  type DoorPhase,
  type KioskApi,
  type KioskState,
  type Refusal,
  type ReturnChoiceResult,
  type SensorReading,
  type SessionKind,
} from '../bridge/api';
import { TerminalClient } from './client';
import type { KioskConfig } from './config';
import { ConfirmQueue } from './confirmQueue';
import { openKioskDatabase, type KioskDatabase } from './database';
import { watchUntilClosed } from './doorWatch';
import { connectCabinet, type CabinetHardware } from './lock';
import { refusalOf } from './refusal';
import { TechnicianGate } from './technician';
import type { TechnicianLogin } from '../bridge/technician';

export interface KioskLog {
  info(message: string, fields?: object): void;
  warn(message: string, fields?: object): void;
}

const consoleLog: KioskLog = {
  info: (m, f) => console.log(JSON.stringify({ level: 'info', msg: m, ...f })),
  warn: (m, f) => console.warn(JSON.stringify({ level: 'warn', msg: m, ...f })),
};

/**
 * The kiosk without a screen: heartbeat, door grid, offline queue and door sessions.
 * Electron's main process and the browser host each wrap one of these; it emits 'state'
 * whenever what the screen shows may have changed.
 */
export class KioskCore extends EventEmitter implements KioskApi {
  readonly client: TerminalClient;
  readonly queue: ConfirmQueue;
  private readonly timers: NodeJS.Timeout[] = [];
  private state: KioskState = INITIAL_STATE;
  private returnCancelled = false;
  private readonly technician: TechnicianGate;
  private sessions = 0;

  private constructor(
    readonly config: KioskConfig,
    readonly hardware: CabinetHardware,
    private readonly db: KioskDatabase,
    private readonly log: KioskLog,
  ) {
    super();
    this.client = new TerminalClient(config.serverUrl, config.deviceToken);
    this.technician = new TechnicianGate(config.technicianPinHash);
    this.queue = new ConfirmQueue(db, this.client, {
      changed: () =>
        this.update({ pendingConfirms: this.queue.pending(), stuckConfirms: this.queue.stuck() }),
      stuck: (c) =>
        this.log.warn('confirm undeliverable, kept aside', { alert: 'confirm_stuck', ...c }),
    });
  }

  static async start(config: KioskConfig, log: KioskLog = consoleLog): Promise<KioskCore> {
    const hardware = await connectCabinet(config);
    const core = new KioskCore(config, hardware, openKioskDatabase(config.dataDir), log);
    core.update({ pendingConfirms: core.queue.pending(), stuckConfirms: core.queue.stuck() });
    core.every(config.heartbeatIntervalSeconds * 1000, () => core.heartbeat());
    core.every(config.cabinetPollSeconds * 1000, () => core.pollCabinet());
    core.every(2000, async () => {
      if (core.online) await core.queue.replay();
    });
    // Heartbeat first: it clears an offline mark, after which queued confirms are accepted.
    await core.heartbeat();
    await core.pollCabinet();
    return core;
  }

  private every(ms: number, task: () => Promise<void>): void {
    const timer = setInterval(
      () =>
        void task().catch((e: Error) =>
          this.log.warn('background task failed', { error: e.message }),
        ),
      ms,
    );
    timer.unref();
    this.timers.push(timer);
  }

  private update(change: Partial<KioskState>): void {
    this.state = { ...this.state, ...change };
    this.emit('state', this.state);
  }

  /** Every 60 s, also while degraded; the configuration is applied as received. */
  async heartbeat(): Promise<void> {
    const answer = await this.client.heartbeat(this.config.appVersion);
    const wasOnline = this.online;
    if (!answer.ok) {
      if (wasOnline)
        this.log.warn('service unreachable; working offline', { status: answer.status });
      this.update({ condition: 'service_unreachable', conditionSince: new Date().toISOString() });
      return;
    }
    this.update({ condition: 'ok', config: answer.value, configSource: 'service' });
    if (!wasOnline) await this.queue.retryNow();
  }

  async pollCabinet(): Promise<void> {
    const answer = await this.client.cabinet();
    if (answer.ok) this.update({ cabinet: answer.value });
  }

  private get online(): boolean {
    return this.state.condition !== 'service_unreachable';
  }

  getState(): Promise<KioskState> {
    return Promise.resolve(this.state);
  }

  private session(session: ({ kind: SessionKind; door: number } & DoorPhase) | null): void {
    if (!session) return this.update({ session: null });
    const expect = session.kind === 'deposit' || session.kind === 'return' ? 'item' : 'empty';
    const id = this.state.session?.door === session.door ? this.state.session.id : ++this.sessions;
    this.update({
      session: {
        ...session,
        id,
        expect,
        active: session.phase !== 'closed',
        since: new Date().toISOString(),
      },
    });
  }

  private closedSession(kind: SessionKind, door: number, itemPresent: boolean): void {
    const expected = kind === 'deposit' || kind === 'return';
    this.session({
      kind,
      door,
      phase: 'closed',
      itemPresent,
      asExpected: itemPresent === expected,
    });
  }

  /** Unlocks and watches; a door that never opens is reported and taken out of service. */
  private async openDoor(kind: SessionKind, door: number): Promise<boolean> {
    const outcome = await this.hardware.board.open(door).then(
      (r) => r.outcome,
      () => 'disconnected' as const,
    );
    if (outcome === 'opened' || outcome === 'already_open') {
      this.session({ kind, door, phase: 'open' });
      return true;
    }
    if (outcome !== 'did_not_open') {
      this.log.warn('door controller did not answer', { alert: 'controller', door, outcome });
      return false;
    }
    this.log.warn('door did not open', { alert: 'door_jammed', door });
    const reported = await this.client.reportDoorFault(door);
    if (!reported.ok) this.log.warn('door fault not reported', { door, status: reported.status });
    void this.pollCabinet();
    return false;
  }

  async pickup(code: string): Promise<DoorOpened | Refusal> {
    const answer = await this.client.pickup(code);
    if (!answer.ok) return refusalOf(answer);
    const { door, shipmentId } = answer.value;
    if (!(await this.openDoor('pickup', door))) {
      this.queue.add('door', { shipmentId, collected: false }, new Date());
      void this.queue.replay();
      return { kind: 'door_failed', door };
    }
    void this.finishPickup(door, shipmentId);
    return { kind: 'door_open', door };
  }

  private async finishPickup(door: number, shipmentId: string): Promise<void> {
    const closed = await watchUntilClosed(this.hardware.board, door, {
      leftOpenMs: this.config.doorCloseTimeoutSeconds * 1000,
      doneWhenEmpty: true,
      onLeftOpen: () => this.session({ kind: 'pickup', door, phase: 'left_open' }),
    });
    if (closed === 'cancelled') return;
    // Collected unless the parcel is still inside: the door's sensor decides.
    this.queue.add('door', { shipmentId, collected: !closed.itemPresent }, closed.at);
    this.closedSession('pickup', door, closed.itemPresent);
    await this.afterSession();
  }

  async verifyCourier(courierNo: string) {
    const answer = await this.client.verifyCourier(courierNo);
    if (!answer.ok) return refusalOf(answer);
    return answer.value.ok && answer.value.courierName !== null
      ? { kind: 'verified' as const, courierName: answer.value.courierName }
      : { kind: 'unknown' as const };
  }

  async deposit(courierNo: string, trackingNumber: string): Promise<DoorOpened | Refusal> {
    // A door that will not open is reported (which takes it out of service and moves the
    // parcel back); the service then assigns another door, once.
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await this.client.deposit(courierNo, trackingNumber);
      if (!answer.ok) return refusalOf(answer);
      const door = answer.value.door;
      if (await this.openDoor('deposit', door)) {
        void this.finishDeposit(door, { courierNo, trackingNumber });
        return { kind: 'door_open', door };
      }
      if (attempt === 1) return { kind: 'door_failed', door };
    }
    return { kind: 'unavailable' };
  }

  private async finishDeposit(
    door: number,
    parcel: { courierNo: string; trackingNumber: string },
  ): Promise<void> {
    const closed = await watchUntilClosed(this.hardware.board, door, {
      leftOpenMs: this.config.doorCloseTimeoutSeconds * 1000,
      onLeftOpen: () => this.session({ kind: 'deposit', door, phase: 'left_open' }),
    });
    if (closed === 'cancelled') return;
    // Shut empty: the parcel never went in, so its recipient must not be sent here.
    if (!closed.itemPresent) this.queue.add('deposit_undo', parcel, closed.at);
    this.closedSession('deposit', door, closed.itemPresent);
    await this.afterSession();
  }

  async startReturn(trackingNumber: string): Promise<DoorOpened | Refusal> {
    const answer = await this.client.startReturn(trackingNumber);
    if (!answer.ok) return refusalOf(answer);
    const { door, returnId } = answer.value;
    this.returnCancelled = false;
    if (!(await this.openDoor('return', door))) {
      this.queue.add('return', { returnId, deposited: false }, new Date());
      void this.queue.replay();
      return { kind: 'door_failed', door };
    }
    void this.watchReturn(door, returnId);
    return { kind: 'door_open', door };
  }

  private async watchReturn(door: number, returnId: string): Promise<void> {
    const closed = await watchUntilClosed(this.hardware.board, door, {
      leftOpenMs: this.config.doorCloseTimeoutSeconds * 1000,
      cancelled: () => this.returnCancelled,
      onLeftOpen: () => this.session({ kind: 'return', door, phase: 'left_open' }),
    });
    if (closed === 'cancelled') {
      this.queue.add('return', { returnId, deposited: false }, new Date());
      this.session(null);
    } else {
      // Deposited only if the sensor sees the parcel: an empty door is no return.
      this.queue.add('return', { returnId, deposited: closed.itemPresent }, closed.at);
      this.closedSession('return', door, closed.itemPresent);
    }
    await this.afterSession();
  }

  async collectReturns(
    courierNo: string,
  ): Promise<{ kind: 'collecting'; count: number } | Refusal> {
    const answer = await this.client.courierReturns(courierNo);
    if (!answer.ok) return refusalOf(answer);
    void this.takeOutReturns(courierNo, answer.value.parcels);
    return { kind: 'collecting', count: answer.value.parcels.length };
  }

  /** One door at a time: the next opens once the courier shut the previous one empty. */
  private async takeOutReturns(
    courierNo: string,
    parcels: { door: number; trackingNumber: string }[],
  ): Promise<void> {
    for (const { door, trackingNumber } of parcels) {
      if (!(await this.openDoor('collect', door))) continue;
      const closed = await watchUntilClosed(this.hardware.board, door, {
        leftOpenMs: this.config.doorCloseTimeoutSeconds * 1000,
        onLeftOpen: () => this.session({ kind: 'collect', door, phase: 'left_open' }),
      });
      if (closed === 'cancelled') return;
      // Still inside: the courier left it, and it stays the locker's.
      if (!closed.itemPresent)
        this.queue.add('return_taken', { courierNo, trackingNumber }, closed.at);
      this.closedSession('collect', door, closed.itemPresent);
      await this.afterSession();
    }
    this.session(null);
  }

  async readSensors(): Promise<SensorReading> {
    try {
      const { doors } = await this.hardware.board.readDoors();
      if (!doors.some((d) => d.known)) return { kind: 'board_unreachable' };
      return {
        kind: 'sensors',
        doors: doors.map((d) =>
          d.known
            ? { position: d.position, known: true, closed: d.closed, itemPresent: d.itemPresent }
            : { position: d.position, known: false },
        ),
      };
    } catch (error) {
      this.log.warn('door controller unreachable', { error: String(error) });
      return { kind: 'board_unreachable' };
    }
  }

  cancelReturn(): Promise<{ kind: 'take_out_and_close' }> {
    this.returnCancelled = true;
    return Promise.resolve({ kind: 'take_out_and_close' });
  }

  finishReturn(): Promise<ReturnChoiceResult> {
    return Promise.resolve({ kind: 'no_choice_pending' });
  }

  reopenReturn(): Promise<ReturnChoiceResult> {
    return Promise.resolve({ kind: 'no_choice_pending' });
  }

  private async afterSession(): Promise<void> {
    if (this.online) await this.queue.replay();
    await this.pollCabinet();
  }

  /** The service menu's PIN, checked against the configuration's hash; opens nothing. */
  technicianLogin(pin: string): Promise<TechnicianLogin> {
    return Promise.resolve(this.technician.login(pin));
  }

  async stop(): Promise<void> {
    this.timers.forEach(clearInterval);
    await this.hardware.close();
    this.db.close();
  }
}
