import { EventEmitter } from 'node:events';
import {
  INITIAL_STATE,
  type CancelReturnResult,
  type CollectResult,
  type DepositResult,
  type DoorProblem,
  type DoorProblemResult,
  type KioskApi,
  type KioskState,
  type PickupResult,
  type ReturnChoiceResult,
  type ReturnResult,
  type SensorReading,
  type StopCollectingResult,
  type VerifyResult,
} from '../bridge/api';
import { TerminalClient, type Answer, type CallEvent } from './client';
import { HEALTHY, conditionOf, type Health } from './condition';
import type { KioskConfig } from './config';
import { CollectFlow } from './collectFlow';
import { ConfigCache } from './configCache';
import { ConfirmQueue } from './confirmQueue';
import { openKioskDatabase, type KioskDatabase } from './database';
import { DoorFlows } from './doorFlows';
import { connectCabinet, type CabinetHardware } from './lock';
import { createKioskLog, type KioskLog, type KioskLogOptions } from './log';
import { refusalOf } from './refusal';
import { TechnicianGate } from './technician';
import type { TechnicianLogin } from '../bridge/technician';
import { SessionTracker } from './sessions';

/** While out of service, the heartbeat comes this often, so the kiosk recovers quickly. */
const RECOVERY_HEARTBEAT_MS = 5000;

export interface KioskStartOptions extends KioskLogOptions {
  /** A logger of the caller's; else one writing to `<dataDir>/logs` and stdout. */
  log?: KioskLog;
}

/**
 * The kiosk without a screen: heartbeat, door grid, durable report queue, the service
 * condition and the door sessions. Electron's main process and the browser host each
 * wrap one of these; it emits 'state' whenever what the screen shows may have changed.
 * No method throws: every failure becomes a refusal or a phase the screen can show.
 */
export class KioskCore extends EventEmitter implements KioskApi {
  readonly client: TerminalClient;
  readonly queue: ConfirmQueue;
  private readonly flows: DoorFlows;
  private readonly collection: CollectFlow;
  private readonly sessions: SessionTracker;
  private readonly configCache: ConfigCache;
  private readonly timers = new Set<NodeJS.Timeout>();
  private state: KioskState = INITIAL_STATE;
  private health: Health = HEALTHY;
  private heartbeatSeen = false;
  private lastHeartbeatAt = 0;
  private stopped = false;
  private readonly technician: TechnicianGate;

  private constructor(
    readonly config: KioskConfig,
    readonly hardware: CabinetHardware,
    private readonly db: KioskDatabase,
    readonly log: KioskLog,
    private readonly closeLog: () => Promise<void>,
  ) {
    super();
    this.client = new TerminalClient(config.serverUrl, config.deviceToken, log, (e) =>
      this.observeCall(e),
    );
    this.technician = new TechnicianGate(config.technicianPinHash);
    this.queue = new ConfirmQueue(db, this.client, {
      changed: () =>
        this.update({ pendingConfirms: this.queue.pending(), stuckConfirms: this.queue.stuck() }),
      stuck: (c) =>
        this.log.warn({ alert: 'confirm_stuck', ...c }, 'report undeliverable, kept aside'),
    });
    const sessions = new SessionTracker(log, (session) => this.update({ session }));
    this.sessions = sessions;
    this.flows = new DoorFlows({
      board: hardware.board,
      queue: this.queue,
      sessions,
      log,
      leftOpenAfterMs: config.doorCloseTimeoutSeconds * 1000,
      settled: () => this.afterSession(),
      controllerDown: () => void this.pollController(),
    });
    this.collection = new CollectFlow(this.flows, (collection) => this.update({ collection }));
    this.configCache = new ConfigCache(db);
  }

  /**
   * Connects the cabinet, opens the database and starts the background work. Waits for
   * nothing on the network: the first heartbeat, the grid and the queue's replay run in
   * the background, and the configuration of the last run is shown meanwhile.
   */
  static async start(config: KioskConfig, options: KioskStartOptions = {}): Promise<KioskCore> {
    const { log, close } = options.log
      ? { log: options.log, close: () => Promise.resolve() }
      : await createKioskLog(config.dataDir, options);
    const hardware = await connectCabinet(config, log);
    const core = new KioskCore(config, hardware, openKioskDatabase(config.dataDir), log, close);
    const cached = core.configCache.load();
    core.update({
      config: cached,
      configSource: cached ? 'cache' : null,
      layout: hardware.cabinet.layout,
      pendingConfirms: core.queue.pending(),
      stuckConfirms: core.queue.stuck(),
    });
    log.info({ cached_config: cached !== null, pending: core.queue.pending() }, 'kiosk starts');
    core.loop(
      () => 1000,
      () =>
        Date.now() - core.lastHeartbeatAt >= core.heartbeatDelay()
          ? core.heartbeat()
          : Promise.resolve(),
    );
    core.loop(
      () => config.cabinetPollSeconds * 1000,
      () => core.poll(),
    );
    core.loop(
      () => 2000,
      async () => {
        if (core.heartbeatSeen && core.state.condition !== 'service_unreachable')
          await core.queue.replay();
      },
    );
    void core.heartbeat();
    void core.poll();
    return core;
  }

  /** Runs `task` again `delay()` after each run ends; a failure is logged, never thrown. */
  private loop(delay: () => number, task: () => Promise<void>): void {
    const next = () => {
      if (this.stopped) return;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void task()
          .catch((e: unknown) => this.log.error({ error: String(e) }, 'background task failed'))
          .finally(next);
      }, delay());
      timer.unref();
      this.timers.add(timer);
    };
    next();
  }

  private heartbeatDelay(): number {
    const normal = this.config.heartbeatIntervalSeconds * 1000;
    return this.state.condition === 'ok' || this.state.condition === 'degraded'
      ? normal
      : Math.min(normal, RECOVERY_HEARTBEAT_MS);
  }

  private update(change: Partial<KioskState>): void {
    this.state = { ...this.state, ...change };
    this.emit('state', this.state);
  }

  private setHealth(change: Partial<Health>): void {
    this.health = { ...this.health, ...change };
    const condition = conditionOf(this.health);
    const unknownDoors = this.health.unknownDoors;
    if (condition !== this.state.condition) {
      const level = condition === 'ok' ? 'info' : 'warn';
      this.log[level]({ from: this.state.condition, to: condition, unknownDoors }, 'condition');
      this.update({ condition, conditionSince: new Date().toISOString(), unknownDoors });
      // Back in service: what waited in the queue goes out at once.
      if (condition === 'ok' || condition === 'degraded') void this.queue.retryNow();
    } else if (unknownDoors.join() !== this.state.unknownDoors.join()) {
      this.update({ unknownDoors });
    }
  }

  /** Every call judges the service: unreachable on the first call that got no answer. */
  private observeCall(event: CallEvent): void {
    if (event.reachable !== this.health.serviceReachable)
      this.setHealth({ serviceReachable: event.reachable });
  }

  /** Every 60 s (every 5 s while out of service); the configuration applied as received. */
  async heartbeat(): Promise<void> {
    this.lastHeartbeatAt = Date.now();
    const answer = await this.client.heartbeat(this.config.appVersion);
    if (answer.ok) {
      this.configCache.save(answer.value);
      this.update({ config: answer.value, configSource: 'service' });
      const first = !this.heartbeatSeen;
      this.heartbeatSeen = true;
      this.setHealth({ refused: false });
      if (first) void this.queue.retryNow();
    } else if (answer.status === 401) {
      // Refused on the heartbeat, which gets through an offline mark: disabled or revoked.
      if (!this.health.refused)
        this.log.warn(
          { alert: 'terminal_refused', correlation_id: answer.correlationId },
          'the service refuses this terminal',
        );
      this.setHealth({ refused: true });
    }
  }

  /** The service's grid and the controller's reading, each on its own. */
  private async poll(): Promise<void> {
    await Promise.all([this.pollCabinet(), this.pollController()]);
  }

  private async pollCabinet(): Promise<void> {
    const answer = await this.client.cabinet();
    if (answer.ok) this.update({ cabinet: answer.value });
  }

  private async pollController(): Promise<SensorReading> {
    try {
      const { doors, boards } = await this.hardware.board.readDoors();
      const reachable = boards.some((b) => b.reachable);
      this.setHealth({
        controllerReachable: reachable,
        unknownDoors: doors.filter((d) => !d.known).map((d) => d.position),
      });
      if (!reachable) return { kind: 'board_unreachable' };
      return {
        kind: 'sensors',
        doors: doors.map((d) =>
          d.known
            ? { position: d.position, known: true, closed: d.closed, itemPresent: d.itemPresent }
            : { position: d.position, known: false },
        ),
      };
    } catch (error) {
      this.setHealth({ controllerReachable: false });
      this.log.warn({ error: String(error) }, 'door controller unreachable');
      return { kind: 'board_unreachable' };
    }
  }

  /**
   * A call to the service; one refused as `unauthorized` (the offline mark after a lapse
   * of heartbeats) is sent once more after a heartbeat that got through, since a 401 did
   * nothing on the service's side.
   */
  private async serve<T>(call: () => Promise<Answer<T>>): Promise<Answer<T>> {
    const answer = await call();
    if (answer.ok || answer.status !== 401 || answer.code !== 'unauthorized') return answer;
    await this.heartbeat();
    return this.health.refused ? answer : call();
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
    return Promise.resolve(this.state);
  }

  pickup(code: string): Promise<PickupResult> {
    return this.guarded('pickup', async () => {
      const answer = await this.serve(() => this.client.pickup(code));
      if (!answer.ok) return refusalOf(answer);
      return this.flows.pickup(answer.value.door, answer.value.shipmentId);
    });
  }

  verifyCourier(courierNo: string): Promise<VerifyResult> {
    return this.guarded('verifyCourier', async () => {
      const answer = await this.serve(() => this.client.verifyCourier(courierNo));
      if (!answer.ok) return refusalOf(answer);
      if (!answer.value.ok || answer.value.courierName === null)
        return { kind: 'unknown' as const };
      // Shown at sign-in ("Parcels to take out: N"); the sign-in stands without it.
      const waiting = await this.serve(() => this.client.courierReturns(courierNo));
      return {
        kind: 'verified' as const,
        courierName: answer.value.courierName,
        toTakeOut: waiting.ok ? waiting.value.parcels.length : null,
      };
    });
  }

  deposit(courierNo: string, trackingNumber: string): Promise<DepositResult> {
    return this.guarded('deposit', () =>
      this.flows.deposit({ courierNo, trackingNumber }, async () => {
        const answer = await this.serve(() => this.client.deposit(courierNo, trackingNumber));
        return answer.ok ? answer.value.door : refusalOf(answer);
      }),
    );
  }

  startReturn(trackingNumber: string): Promise<ReturnResult> {
    return this.guarded('startReturn', async () => {
      const answer = await this.serve(() => this.client.startReturn(trackingNumber));
      if (!answer.ok) return refusalOf(answer);
      return this.flows.startReturn(answer.value.door, answer.value.returnId);
    });
  }

  cancelReturn(): Promise<CancelReturnResult> {
    return Promise.resolve(this.flows.cancelReturn());
  }

  finishReturn(): Promise<ReturnChoiceResult> {
    return this.flows.choose('finish');
  }

  reopenReturn(): Promise<ReturnChoiceResult> {
    return this.flows.choose('reopen');
  }

  collectReturns(courierNo: string): Promise<CollectResult> {
    return this.guarded('collectReturns', async () => {
      const answer = await this.serve(() => this.client.courierReturns(courierNo));
      if (!answer.ok) return refusalOf(answer);
      const collection = this.collection.start(courierNo, answer.value.parcels);
      return { kind: 'collecting' as const, count: collection.total, id: collection.id };
    });
  }

  stopCollecting(): Promise<StopCollectingResult> {
    return Promise.resolve(this.collection.stop());
  }

  /**
   * Reported as a door fault through the durable queue, then sent at once if the service
   * answers: the person is told whether it got through or waits on disk for the service.
   */
  reportDoorProblem(problem: DoorProblem): Promise<DoorProblemResult> {
    return this.guarded('reportDoorProblem', async () => {
      const session = this.sessions.current();
      if (!session) return { kind: 'no_door' as const };
      const door = session.door;
      // The core saw it fail and has reported it already: never twice.
      if (problem === 'did_not_open' && session.phase === 'did_not_open')
        return { kind: 'already_reported' as const, door };
      const id = this.flows.reportFault(door, problem);
      this.log.warn({ alert: 'door_reported', door, problem }, 'a customer reports the door');
      await this.queue.replay();
      return this.queue.isPending(id)
        ? { kind: 'queued' as const, door }
        : { kind: 'sent' as const, door };
    });
  }

  /** For technicians: every door's sensors now; also refreshes the controller's condition. */
  readSensors(): Promise<SensorReading> {
    return this.pollController();
  }

  private afterSession(): void {
    if (this.heartbeatSeen && this.state.condition !== 'service_unreachable')
      void this.queue.replay();
    void this.pollCabinet().catch(() => undefined);
  }

  /** The service menu's PIN, checked against the configuration's hash; opens nothing. */
  technicianLogin(pin: string): Promise<TechnicianLogin> {
    return Promise.resolve(this.technician.login(pin));
  }

  /**
   * In this order: no new background task, the queue's replay in flight done, the door
   * board, then the database (close() finalizes its statements, then the connection,
   * which checkpoints the WAL).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearTimeout);
    this.flows.stop();
    await this.queue.close();
    await this.hardware.close();
    this.db.close();
    this.log.info('kiosk stops');
    await this.closeLog();
  }
}
