import type { TerminalClient } from './client';
import type { KioskState } from '../bridge/api';
import type { KioskConfig } from './config';
import { CollectFlow } from './collectFlow';
import { ConfigCache } from './configCache';
import type { Checkpoint } from './deviceToken';
import { ReportQueue } from './reportQueue';
import { openKioskDatabase, type KioskDatabase } from './database';
import { DoorFlows } from './doorFlows';
import { DoorSupervisor } from './doorSupervision';
import { KioskFacade, type FacadeParts } from './kioskFacade';
import { KioskStateStore } from './kioskState';
import { OfflineDeposits } from './offlineDeposit';
import { OfflinePickups } from './offlinePickup';
import { connectCabinet, type CabinetHardware } from './lock';
import { createKioskLog, type KioskLog, type KioskLogOptions } from './log';
import { readController } from './sensors';
import { ServiceLink } from './serviceLink';
import { SessionTracker } from './sessions';
import { TechnicianGate } from './technician';
import { DoorStatePusher } from './doorStates';
import { LiveLink } from './liveLink';
import { RemoteCommands } from './remoteCommands';
import path from 'node:path';
import { Updater } from '../updater/updater';

export interface KioskStartOptions extends KioskLogOptions {
  /** A logger of the caller's; else one writing to `<dataDir>/logs` and stdout. */
  log?: KioskLog;
  /** Called at each step of a token rotation (the tests cut the power there). */
  rotationCheckpoint?: Checkpoint;
  /**
   * Stops the kiosk and its process, for the launcher to start the release just
   * installed. Without it (tests, development) the kiosk installs no update.
   */
  restart?: () => void;
}

interface Parts extends FacadeParts {
  configCache: ConfigCache;
  /** The live link, unless the configuration turns it off. */
  live: LiveLink | null;
  doorStates: DoorStatePusher | null;
  remoteSessions: SessionTracker;
  supervisor: DoorSupervisor;
}

/**
 * Wires the kiosk's parts to each other: the service link, the durable queue, the door
 * flows and the state the screen is shown, each told of what concerns it in the others.
 */
function assemble(
  config: KioskConfig,
  hardware: CabinetHardware,
  db: KioskDatabase,
  log: KioskLog,
  checkpoint?: Checkpoint,
): Parts {
  const store = new KioskStateStore(log, {
    // Back in service: what waited in the queue goes out at once.
    backInService: () => void queue.retryNow(),
  });
  const configCache = new ConfigCache(db);
  // The first heartbeat of a run: the queue goes first, then the offline sets are fetched.
  const link = new ServiceLink(
    config,
    log,
    store,
    configCache,
    () => {
      void queue
        .retryNow()
        .then(() => Promise.all([offline.sync(), deposits.sync()]))
        .catch((e: unknown) => log.warn({ error: String(e) }, 'offline sets not fetched'));
    },
    checkpoint,
  );
  const queue: ReportQueue = new ReportQueue(db, link.client, {
    changed: () => store.update({ pendingReports: queue.pending(), stuckReports: queue.stuck() }),
    stuck: (c) => log.warn({ alert: 'report_stuck', ...c }, 'report undeliverable, kept aside'),
    answered: (r, status) => {
      if (r.kind === 'door' && status === 404 && typeof r.body.shipmentId === 'string')
        offline.confirmNotFound(r.body.shipmentId);
      // The parcel stayed in its door, as the service now knows: its code opens it again.
      if (r.kind === 'door' && status === 200 && r.body.collected === false)
        offline.stayed(String(r.body.shipmentId), Date.parse(String(r.body.occurred_at)));
      if (r.kind === 'offline_deposit' && typeof r.body.trackingNumber === 'string')
        deposits.answered(r.body.trackingNumber, status);
    },
  });
  const readSensors = () => readController(hardware.board, store, log);
  const sessions = new SessionTracker(log, (session) => store.update({ session }));
  // The live link: remote opens run in sessions of their own, shown apart from a person's.
  const remoteSessions = new SessionTracker(log.child({ remote: true }), (session) => {
    const shown = store.state.remoteOpen;
    if (session && shown && shown.session.id === session.id)
      store.update({ remoteOpen: { ...shown, session } });
  });
  let doorStates: DoorStatePusher | null = null;
  // What the supervision saw goes to the service at once, when it answers; each of its
  // readings feeds the live link's door states (one read of the bus serves both).
  const supervisor = new DoorSupervisor({
    board: hardware.board,
    queue,
    sessions,
    remoteSessions,
    onReading: (reading) => doorStates?.observe(reading),
    store,
    log,
    intervalMs: config.doorWatchIntervalMs,
    reported: () => {
      if (link.open) void queue.replay();
    },
  });
  const flows = new DoorFlows({
    board: hardware.board,
    supervisor,
    queue,
    sessions,
    log,
    leftOpenAfterMs: config.doorCloseTimeoutSeconds * 1000,
    // A session came to rest: its report goes out, and the grid shows the door's new state.
    settled: () => {
      if (link.open) void queue.replay();
      void link.pollCabinet().catch(() => undefined);
    },
    controllerDown: () => void readSensors(),
  });
  const onState = (listener: (state: KioskState) => void) => {
    store.on('state', listener);
    return () => store.off('state', listener);
  };
  const offline = new OfflinePickups({
    db,
    client: link.client,
    log,
    openDoor: (door, shipmentId, others) =>
      flows.pickup(
        door,
        { shipmentId },
        others.map((id) => ({ shipmentId: id })),
      ),
    currentSessionId: () => sessions.current('pickup')?.id ?? null,
    onState,
  });
  const deposits = new OfflineDeposits({ db, client: link.client, queue, log, onState });
  // Working on its own: the service unreachable, and the sets it needs received.
  store.on('state', (state) => {
    const onItsOwn =
      state.condition === 'service_unreachable' && (offline.ready || deposits.ready)
        ? { pickup: offline.ready, deposit: deposits.ready }
        : null;
    if (JSON.stringify(onItsOwn) !== JSON.stringify(state.onItsOwn)) store.update({ onItsOwn });
  });
  const collection = new CollectFlow(flows, (c) => store.update({ collection: c }));
  const technician = new TechnicianGate(config.technicianPinHash);

  const remote = new RemoteCommands({
    flows,
    remoteSessions,
    service: link,
    store,
    log,
    logsDir: path.join(config.dataDir, 'logs'),
  });
  const doors = new Set(hardware.cabinet.layout.columns.flat());
  const live = config.link
    ? new LiveLink({
        serverUrl: config.serverUrl,
        deviceToken: () => link.token.bearer,
        publicKey: config.linkPublicKey,
        db,
        log: log.child({ part: 'link' }),
        station: () => store.state.config?.station_code ?? null,
        doors,
        execute: (command) => remote.execute(command),
        cabinetChanged: () => void link.pollCabinet().catch(() => undefined),
        connectedChanged: (connected) => {
          store.update({ link: connected ? 'connected' : 'disconnected' });
          doorStates?.reset();
          // What changed while the link was down: the grid now, the doors at the next read.
          void link.pollCabinet().catch(() => undefined);
        },
      })
    : null;
  if (live) {
    doorStates = new DoorStatePusher(
      live,
      (door) => sessions.activeAt(door) || remoteSessions.activeAt(door),
    );
  }
  return {
    store,
    link,
    queue,
    flows,
    collection,
    sessions,
    technician,
    readSensors,
    log,
    configCache,
    live,
    doorStates,
    remoteSessions,
    offline,
    deposits,
    supervisor,
  };
}

/**
 * The kiosk without a screen: the bridge's facade (kioskFacade.ts) over the service link
 * (serviceLink.ts: heartbeat, door grid), the door board, the durable report queue and the
 * door sessions, with the background work that keeps them current. Electron's main
 * process and the browser host each wrap one of these.
 */
export class KioskCore extends KioskFacade {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  private lastCabinetPoll = 0;

  private constructor(
    readonly config: KioskConfig,
    readonly hardware: CabinetHardware,
    private readonly db: KioskDatabase,
    private readonly supervisor: DoorSupervisor,
    parts: FacadeParts,
    private readonly closeLog: () => Promise<void>,
    private readonly live: Pick<Parts, 'live' | 'doorStates'>,
  ) {
    super(parts);
  }

  /** The live link, unless the configuration turns it off. */
  get liveLink(): LiveLink | null {
    return this.live.live;
  }

  get client(): TerminalClient {
    return this.parts.link.client;
  }

  get queue(): ReportQueue {
    return this.parts.queue;
  }

  /** Pickups while the service cannot be reached: the verifiers kept, the handouts. */
  get offline(): OfflinePickups {
    return this.parts.offline;
  }

  /** Deposits while the service cannot be reached: the sets kept, the deposits taken in. */
  get deposits(): OfflineDeposits {
    return this.parts.deposits;
  }

  /** The door supervision: every door watched, the boards checked at boot. */
  get supervision(): DoorSupervisor {
    return this.supervisor;
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
    const db = openKioskDatabase(config.dataDir);
    const parts = assemble(config, hardware, db, log, options.rotationCheckpoint);
    const core = new KioskCore(config, hardware, db, parts.supervisor, parts, close, parts);
    const { store, link, queue, configCache, live } = parts;
    const cached = configCache.load();
    store.update({
      config: cached,
      configSource: cached ? 'cache' : null,
      layout: hardware.cabinet.layout,
      pendingReports: queue.pending(),
      stuckReports: queue.stuck(),
      link: live ? 'disconnected' : 'off',
    });
    log.info({ cached_config: cached !== null, pending: queue.pending() }, 'kiosk starts');
    // Every door watched from now on; the boards' polarity and settings checked.
    parts.supervisor.start();
    core.loop(
      () => 1000,
      async () => {
        if (link.heartbeatDue()) await link.heartbeat();
      },
    );
    // The grid is polled as the spec says; while the link is up, which says when the grid
    // changed (and the kiosk polls at once), the idle poll can wait longer.
    core.loop(
      () => config.cabinetPollSeconds * 1000,
      () => {
        const every = live?.connected
          ? config.cabinetPollSecondsWithLink
          : config.cabinetPollSeconds;
        return Date.now() - core.lastCabinetPoll >= every * 1000 - 50
          ? core.poll()
          : parts.readSensors().then(() => undefined);
      },
    );
    live?.start();
    core.loop(
      () => 2000,
      async () => {
        if (link.open) await queue.replay();
      },
    );
    // The offline pickup set, after the queue (its confirms go first), by ETag.
    core.loop(
      () => config.cabinetPollSeconds * 1000,
      async () => {
        if (link.open) await parts.offline.sync();
      },
    );
    // The deposit set, once a minute (at most as often as the grid), by ETag.
    core.loop(
      () => Math.max(60, config.cabinetPollSeconds) * 1000,
      async () => {
        if (link.open) await parts.deposits.sync();
      },
    );
    const updates = config.updates;
    if (updates && options.restart) {
      const updater = new Updater({
        config: { ...config, updates },
        store,
        log,
        token: () => link.token.bearer,
        lastActivityAt: () => core.lastActivityAt,
        restart: options.restart,
      });
      core.loop(
        () => 1000,
        () => updater.tick(),
      );
    }
    void link.heartbeat();
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

  /** Every 60 s (every 5 s while out of service); the configuration applied as received. */
  async heartbeat(): Promise<void> {
    await this.parts.link.heartbeat();
  }

  /** The service's grid and the controller's reading, each on its own. */
  private async poll(): Promise<void> {
    this.lastCabinetPoll = Date.now();
    await Promise.all([this.parts.link.pollCabinet(), this.parts.readSensors()]);
  }

  /**
   * In this order: no new background task, the queue's replay in flight done, the door
   * board, then the database (close() finalizes its statements, then the connection,
   * which checkpoints the WAL).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearTimeout);
    this.live.live?.stop();
    this.parts.flows.stop();
    await this.supervisor.stop();
    await this.parts.queue.close();
    await this.hardware.close();
    this.db.close();
    this.log.info('kiosk stops');
    await this.closeLog();
  }
}
