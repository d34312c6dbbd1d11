import { setTimeout as sleep } from 'node:timers/promises';
import {
  LockDriverError,
  type CabinetReading,
  type DoorReading,
  type LockBoard,
} from '@locker/lock-driver';
import type { KioskStateStore } from './kioskState';
import type { KioskLog } from './log';
import type { ReportQueue } from './reportQueue';
import type { Session, SessionParcel, SessionTracker } from './sessions';

export interface SupervisionDeps {
  board: LockBoard;
  queue: ReportQueue;
  sessions: SessionTracker;
  /** Remote opens' sessions (the live link): their doors are driven too. */
  remoteSessions?: SessionTracker;
  /** Told of every reading of the cabinet (the live link's door states). */
  onReading?(reading: CabinetReading): void;
  store: KioskStateStore;
  log: KioskLog;
  /** Pause between two reads of the whole cabinet. */
  intervalMs: number;
  /** Something was queued that the service should hear of at once. */
  reported(): void;
}

/**
 * How long an unlock at boot waits for the first reading of the cabinet (its polarity) and
 * the first pass of the boot check (a delayed unlock left on a board cleared first).
 */
const FIRST_CHECK_WAIT_MS = 10_000;
/** Between two tries of the boot check of a board that did not answer (or no port yet). */
const BOOT_CHECK_RETRY_MS = 5000;

/**
 * The kiosk's door supervision (docs/decisions.md, "Door supervision"): every door watched
 * all the time (`LockBoard.watchDoors`), sessions or not.
 * - A door seen open that no session drives is reported at once (a door event through the
 *   durable queue: `opened_unseen`), once until it is seen shut again; a door whose session
 *   found it did not open is reported with that visit's parcel (`cause: after_fault`).
 * - A board every door of which reads open at once (suspect polarity) is reported once per
 *   episode; the kiosk opens none of its doors meanwhile (`untrusted`) and the screen shows
 *   them out of service.
 * - At boot, each board's delayed unlock is set to what commissioning recorded (0 if
 *   none), and its firmware and unlock time compared with the cabinet file: a board
 *   swapped or reset to factory is reported.
 */
export class DoorSupervisor {
  private readonly stopping = new AbortController();
  private watcher: { stop(): Promise<void> } | undefined;
  private bootCheck: Promise<void> | undefined;
  private bootDone!: () => void;
  /** Resolves once every board had its boot check (delayed unlock set, settings compared). */
  readonly bootChecked = new Promise<void>((resolve) => (this.bootDone = resolve));
  private firstPassDone!: () => void;
  /** Resolves once the boot check went through every board once, answering or not. */
  private readonly firstPass = new Promise<void>((resolve) => (this.firstPassDone = resolve));
  private suspect = new Set<number>();
  /** Doors seen open and accounted for (reported, or left by their session): not again until shut. */
  private readonly accounted = new Set<number>();
  /** Doors whose unlock did not open them, with the parcel their visit was for. */
  private readonly failed = new Map<number, SessionParcel>();
  private firstReading: Promise<void>;
  private firstRead!: () => void;

  constructor(private readonly d: SupervisionDeps) {
    this.firstReading = new Promise((resolve) => (this.firstRead = resolve));
    d.sessions.released = (session) => this.released(session);
    if (d.remoteSessions) d.remoteSessions.released = (session) => this.released(session);
  }

  start(): void {
    this.d.store.setHealth({ doorCount: this.d.board.map.positions.length });
    this.watcher = this.d.board.watchDoors({
      intervalMs: this.d.intervalMs,
      signal: this.stopping.signal,
      onReading: (reading) => this.observe(reading),
    });
    this.bootCheck = this.checkBoardsAtBoot()
      .then(() => this.bootDone())
      .catch((error: unknown) =>
        this.d.log.error({ error: String(error) }, 'boot check of the boards failed'),
      )
      .finally(() => this.firstPassDone());
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.firstPassDone();
    await this.watcher?.stop();
    await this.bootCheck;
  }

  /**
   * The door's board cannot be trusted: its polarity is suspect, so nothing may be sent to
   * it. Waits for the first reading of the cabinet at boot (a few seconds at most).
   */
  async untrusted(door: number): Promise<boolean> {
    await Promise.race([
      Promise.all([this.firstReading, this.firstPass]),
      sleep(FIRST_CHECK_WAIT_MS, undefined, { ref: false }),
    ]);
    return this.suspect.has(this.d.board.map.toAddress(door).board);
  }

  /** A session let go of its door: what it left there is accounted for. */
  private released(session: Session): void {
    const door = session.door;
    if (session.phase === 'did_not_open' && session.pulsed) {
      // Pulsed and never seen open: if it opens later, that is a delayed unlock (or a
      // forced door) and the service hears of it with the parcel the visit was for. A
      // parcel taken out is inside; one being put in never went in.
      const takeOut = session.kind === 'pickup' || session.kind === 'collect';
      this.failed.set(door, takeOut ? session.parcel : {});
      this.accounted.delete(door);
      return;
    }
    this.failed.delete(door);
    // Its session saw it shut last: the next opening is news. Otherwise (left open,
    // unsettled, ended) it was reported by the session, or is being: not again until shut.
    if (session.phase === 'reported' || session.phase === 'cancelled') this.accounted.delete(door);
    else this.accounted.add(door);
  }

  private observe(reading: CabinetReading): void {
    try {
      // The controller's health from every reading (each half second), not from a read
      // between the grid's polls (15 s apart): a controller gone silent shows out of
      // service one read later (its four tries, under two seconds), and back in service
      // as soon as it answers. One writer, so the last reading on the bus is what shows.
      this.d.store.setHealth({
        controllerReachable: reading.boards.some((b) => b.reachable),
        unknownDoors: reading.doors.filter((d) => !d.known).map((d) => d.position),
        suspectDoors: this.judgePolarity(reading),
      });
      for (const door of reading.doors) this.judgeDoor(door);
      this.firstRead();
      this.d.onReading?.(reading);
    } catch (error) {
      // The watch goes on: one reading it could not act on (its report not kept, say)
      // must not end the supervision of every door.
      this.d.log.error({ error: String(error) }, 'a reading of the doors could not be handled');
    }
  }

  /** Boards whose every door reads open at once; answers their doors. */
  private judgePolarity(reading: CabinetReading): number[] {
    const now = new Set(reading.suspectPolarity);
    for (const board of now) {
      if (this.suspect.has(board)) continue;
      const positions = this.positionsOf(board);
      this.d.log.warn(
        { alert: 'suspect_polarity', board, doors: positions },
        'every door of a board reads open at once: polarity suspect, nothing opened on it',
      );
      this.d.queue.addEvent(
        'cabinet_event',
        { kind: 'suspect_polarity', board, positions },
        new Date(),
      );
      this.d.reported();
    }
    for (const board of this.suspect)
      if (!now.has(board))
        this.d.log.info({ board }, 'a board whose polarity was suspect reads its doors shut again');
    this.suspect = now;
    return [...now].flatMap((board) => this.positionsOf(board));
  }

  private positionsOf(board: number): number[] {
    return this.d.board.map.positions.filter((p) => this.d.board.map.toAddress(p).board === board);
  }

  private judgeDoor(door: DoorReading): void {
    if (!door.known || this.suspect.has(door.board)) return;
    const position = door.position;
    if (door.closed) {
      this.accounted.delete(position);
      return;
    }
    if (
      this.d.sessions.activeAt(position) ||
      this.d.remoteSessions?.activeAt(position) ||
      this.accounted.has(position)
    )
      return;
    this.accounted.add(position);
    const failed = this.failed.get(position);
    this.failed.delete(position);
    this.d.log.warn(
      {
        alert: 'door_opened_unseen',
        door: position,
        item_present: door.itemPresent,
        after_fault: failed !== undefined,
      },
      failed ? 'a door reported as not opening opened later' : 'a door opened with no one at it',
    );
    this.d.queue.addEvent(
      'door_event',
      {
        position,
        kind: 'opened_unseen',
        itemPresent: door.itemPresent,
        visit: null,
        ...(failed ? { cause: 'after_fault' as const, ...failed } : {}),
      },
      new Date(),
    );
    this.d.reported();
  }

  /**
   * Once per board, as soon as it answers: the delayed unlock set to what commissioning
   * recorded (0 if nothing: no door must open late), then firmware and unlock time
   * compared with the cabinet file.
   */
  private async checkBoardsAtBoot(): Promise<void> {
    const { board: lockBoard, log } = this.d;
    const recorded = lockBoard.cabinet.boardSettings ?? {};
    const delaySet = new Set<number>();
    const checked = new Set<number>();
    const boards = lockBoard.cabinet.boards;
    while (!this.stopping.signal.aborted) {
      if (lockBoard.connected) {
        try {
          for (const board of boards) {
            if (delaySet.has(board)) continue;
            const seconds = recorded[String(board)]?.unlockDelayS ?? 0;
            try {
              await lockBoard.settings.setUnlockDelay(board, seconds);
              delaySet.add(board);
              log.info({ board, unlock_delay_s: seconds }, 'delayed unlock set as commissioned');
            } catch (error) {
              if (error instanceof LockDriverError && error.code === 'DISCONNECTED') throw error;
            }
          }
          if (checked.size < boards.length)
            for (const check of await lockBoard.checkBoards()) {
              if (!check.reachable || checked.has(check.board)) continue;
              checked.add(check.board);
              if (check.differences.length === 0) continue;
              log.warn(
                { alert: 'board_changed', board: check.board, differences: check.differences },
                'a board is not as commissioned',
              );
              this.d.queue.addEvent(
                'cabinet_event',
                {
                  kind: 'board_changed',
                  board: check.board,
                  positions: this.positionsOf(check.board),
                  differences: check.differences,
                },
                new Date(),
              );
              this.d.reported();
            }
        } catch (error) {
          if (!(error instanceof LockDriverError && error.code === 'DISCONNECTED')) throw error;
        }
      }
      this.firstPassDone();
      if (delaySet.size === boards.length && checked.size === boards.length) return;
      try {
        await sleep(BOOT_CHECK_RETRY_MS, undefined, { signal: this.stopping.signal });
      } catch {
        return;
      }
    }
  }
}
