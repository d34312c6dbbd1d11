import type { LockBoard, OpenOutcome, OpenResult } from '@locker/lock-driver';
import type {
  CancelReturnResult,
  DepositResult,
  DoorProblem,
  PickupResult,
  Refusal,
  ReturnChoiceResult,
  ReturnResult,
} from '../bridge/api';
import {
  foundOpenEvent,
  reportOnClose,
  reportOnFailedUnlock,
  returnCancellable,
  returnClosedStep,
  takeOutcome,
  unlockStep,
  unlockUnknownEvent,
  unsettledEvent,
  type QueuedAs,
  type Unlocked,
  type Visit,
} from './doorSteps';
import type { KioskLog } from './log';
import type { ReportQueue } from './reportQueue';
import { judged, type Session, type SessionTracker } from './sessions';

export interface FlowDeps {
  board: LockBoard;
  /** Whether a door's board can be trusted (doorSupervision.ts). */
  supervisor: { untrusted(door: number): Promise<boolean> };
  queue: ReportQueue;
  sessions: SessionTracker;
  log: KioskLog;
  leftOpenAfterMs: number;
  /** A session came to rest: replay the queue, refresh the grid. */
  settled(): void;
  /** The controller refused before sending anything: it is not connected. */
  controllerDown(): void;
}

type Closed = { itemPresent: boolean; at: Date };
/** How a take-out's door was left: seen shut, or given up on (still open, or the board silent). */
type Left = { shut: boolean; itemPresent: boolean | null; at: Date };
type Choice = 'finish' | 'reopen';

/** A promise with its resolve, for a question the screen answers later. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * What happens at a door, from the unlock to the report, for each kind of visit. Every
 * flow runs to a phase the screen can show, whatever fails; every report goes through the
 * durable queue with the time it happened; the driver is asked for one pulse per unlock and
 * never again by itself (a second unlock happens only when a person asks for it).
 */
export class DoorFlows {
  private readonly stopping = new AbortController();
  private choice: {
    session: Session;
    answer: ReturnType<typeof deferred<Choice>>;
    outcome: ReturnType<typeof deferred<ReturnChoiceResult>>;
  } | null = null;

  constructor(readonly d: FlowDeps) {}

  stop(): void {
    this.stopping.abort();
  }

  /** The kiosk is stopping: no flow opens another door. */
  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  // background, unlock, watch and reportFault are shared with the courier's take-out
  // (collectFlow.ts): the same door steps, one door after another.

  /** Runs the rest of a session in the background; an error ends it, logged, never thrown. */
  background(session: Session | null, flow: () => Promise<void>): void {
    void flow()
      .catch((error: unknown) => {
        this.d.log.error({ error: String(error), session: session?.id }, 'door flow failed');
        session?.end('error', { error: String(error) });
      })
      .finally(() => this.d.settled());
  }

  /**
   * The door's board cannot be trusted (suspect polarity): nothing is sent, and the visit's
   * parcel is reported as for an unlock that was never sent (doorSteps.ts).
   */
  async refused(door: number, visit: Visit): Promise<boolean> {
    if (!(await this.d.supervisor.untrusted(door))) return false;
    this.d.log.warn(
      { door, visit: visit.kind },
      'door on a board with a suspect polarity: not opened',
    );
    this.report(reportOnFailedUnlock(visit, 'controller_down'), new Date());
    this.d.settled();
    return true;
  }

  /**
   * One unlock pulse at most (the driver's promise); its outcome moves the session. A door
   * found already open is reported at once as found open, with its item sensor; a board
   * silent after the pulse, as an unlock of unknown outcome (no fault). A remote open (no
   * visit) reports neither: its outcome goes back over the live link; `seen` is told the
   * driver's result as it came.
   */
  async unlock(
    s: Session,
    visit: Visit | null,
    seen?: (result: OpenResult) => void,
  ): Promise<Unlocked> {
    let result;
    try {
      result = await this.d.board.open(s.door);
      seen?.(result);
    } catch (error) {
      // Refused before anything was sent (not connected): the door is shut as it was.
      s.to({ phase: 'did_not_open' }, { error: String(error), pulses: 0 });
      this.d.controllerDown();
      return 'controller_down';
    }
    const step = unlockStep(result);
    s.pulsed = result.pulses === 1;
    if (step.unlocked === 'open' || step.unlocked === 'found_open' || step.unlocked === 'unknown')
      s.opening = {
        how: step.unlocked === 'open' ? 'opened' : step.unlocked,
        before: result.before,
      };
    if (step.unlocked === 'found_open') s.foundOpen(result.before?.itemPresent ?? false);
    s.to(
      { phase: step.phase },
      {
        outcome: result.outcome,
        pulses: result.pulses,
        elapsed_ms: Math.round(result.elapsedMs),
        seen_open_after_ms: result.seenOpenAfterMs,
      },
    );
    switch (step.unlocked) {
      case 'open':
        break;
      case 'found_open':
        this.d.log.warn(
          { alert: 'door_found_open', door: s.door, item_present: result.before?.itemPresent },
          'door already open at the unlock: nothing sent',
        );
        if (visit)
          this.d.queue.addEvent(
            'door_event',
            foundOpenEvent(s.door, visit, result.before?.itemPresent ?? false),
            new Date(),
          );
        this.d.settled();
        break;
      case 'did_not_open':
        this.d.log.warn({ alert: 'door_jammed', door: s.door }, 'door did not open');
        break;
      case 'controller_down':
        this.d.controllerDown();
        break;
      case 'unknown':
        this.d.log.warn({ alert: 'door_unknown', door: s.door }, 'controller silent after unlock');
        if (visit)
          this.d.queue.addEvent('door_event', unlockUnknownEvent(s.door, visit), new Date());
        break;
      default: {
        const unknown: never = step.unlocked;
        throw new Error(`unknown unlock step ${String(unknown)}`);
      }
    }
    return step.unlocked;
  }

  /** Watches the door until it is seen shut; null when it cannot be (session ended). */
  async watch(s: Session): Promise<Closed | null> {
    const result = await this.d.board.watchClosed(s.door, {
      leftOpenAfterMs: this.d.leftOpenAfterMs,
      signal: this.stopping.signal,
      // After an unanswered unlock, a controller that never answers again ends the
      // session: nothing is reported, so what the service has recorded stays (the safe side).
      giveUpAfterMs: s.phase === 'unknown' ? 2 * this.d.leftOpenAfterMs : undefined,
      onLeftOpen: () => {
        if (s.phase === 'open' || s.phase === 'unknown') s.to({ phase: 'left_open' });
        else this.d.log.warn({ session: s.id, phase: s.phase }, 'door left open');
      },
    });
    switch (result.outcome) {
      case 'closed_with_item':
        return { itemPresent: true, at: result.at };
      case 'closed_empty':
        return { itemPresent: false, at: result.at };
      case 'left_open':
        s.end('the door was never seen shut', { elapsed_ms: Math.round(result.elapsedMs) });
        return null;
      case 'aborted':
        s.end('the kiosk stopped');
        return null;
      default: {
        const unknown: never = result.outcome;
        throw new Error(`unknown close outcome ${String(unknown)}`);
      }
    }
  }

  /** A door that failed: seen by the core (did not open), or reported by a person. */
  reportFault(door: number, problem: DoorProblem = 'did_not_open'): number {
    return this.d.queue.add('door_fault', { position: door, problem }, new Date());
  }

  /** Queues what doorSteps.ts decided, if anything, with the time it happened. */
  report(report: QueuedAs | null, at: Date): void {
    if (report) this.d.queue.addReport(report, at);
  }

  private opened(s: Session, unlocked: 'open' | 'found_open' | 'unknown') {
    switch (unlocked) {
      case 'open':
        return { kind: 'door_open' as const, door: s.door };
      case 'found_open':
        return { kind: 'door_open' as const, door: s.door, foundOpen: true as const };
      case 'unknown':
        return { kind: 'door_unknown' as const, door: s.door };
    }
  }

  /**
   * A take-out's door (a pickup, a courier's take-out) watched until seen shut, or, with
   * `giveUpAfterMs`, given up on still open: then read once more for its item sensor. Null
   * when nothing can be judged (the kiosk stops; the board never answered again).
   */
  async watchTakeOut(s: Session, giveUpAfterMs: number | undefined): Promise<Left | null> {
    const result = await this.d.board.watchClosed(s.door, {
      leftOpenAfterMs: this.d.leftOpenAfterMs,
      signal: this.stopping.signal,
      giveUpAfterMs,
      onLeftOpen: () => {
        if (s.phase === 'open' || s.phase === 'unknown') s.to({ phase: 'left_open' });
      },
    });
    switch (result.outcome) {
      case 'closed_with_item':
      case 'closed_empty':
        return { shut: true, itemPresent: result.outcome === 'closed_with_item', at: result.at };
      case 'left_open': {
        const now = await this.d.board.readDoor(s.door).catch(() => undefined);
        if (!now?.known) {
          // After an unanswered unlock, a controller that never answers again ends the
          // session: what the service has recorded stays (the safe side).
          s.end('the door was never seen shut', { elapsed_ms: Math.round(result.elapsedMs) });
          return null;
        }
        return { shut: now.closed, itemPresent: now.itemPresent, at: new Date() };
      }
      case 'aborted':
        s.end('the kiosk stopped');
        return null;
      default: {
        const unknown: never = result.outcome;
        throw new Error(`unknown close outcome ${String(unknown)}`);
      }
    }
  }

  /**
   * The end of a take-out, judged on evidence (doorSteps.ts `takeOutcome`): confirmed as
   * taken or left inside, or reported for the service to settle (a door event that opens an
   * operations alert), never confirmed by the kiosk alone. `taken`: whether it counts as
   * taken out.
   */
  settleTakeOut(s: Session, visit: Visit, left: Left): boolean {
    const outcome = takeOutcome(s.opening ?? { how: 'opened', before: null }, left);
    if (typeof outcome === 'object') {
      this.d.log.warn(
        { alert: 'take_out_unsettled', door: s.door, cause: outcome.unsettled },
        'take-out not confirmed: reported for the service to settle',
      );
      this.d.queue.addEvent(
        'door_event',
        unsettledEvent(s.door, visit, outcome.unsettled, left.itemPresent),
        left.at,
      );
      s.to({ phase: 'unsettled', itemPresent: left.itemPresent, cause: outcome.unsettled });
      return false;
    }
    const itemPresent = outcome === 'left_inside';
    s.to({ phase: 'closed', ...judged(s.kind, itemPresent) });
    // Taken unless the parcel is still inside: the door's sensor decides.
    this.report(reportOnClose(visit, itemPresent), left.at);
    s.to({ phase: 'reported', ...judged(s.kind, itemPresent) });
    return !itemPresent;
  }

  async pickup(
    door: number,
    parcel: { shipmentId: string; trackingNumber?: string },
    /**
     * The door's other parcels for the same code (issue 27): the door opens once, and the
     * door's sensor judges them all with the first; each gets its own confirm.
     */
    others: { shipmentId: string; trackingNumber?: string }[] = [],
  ): Promise<PickupResult> {
    const visit: Visit = { kind: 'pickup', ...parcel };
    if (await this.refused(door, visit)) return { kind: 'door_out_of_service', door };
    const s = this.d.sessions.begin('pickup', door, parcel);
    const unlocked = await this.unlock(s, visit);
    if (unlocked === 'did_not_open' || unlocked === 'controller_down') {
      if (unlocked === 'did_not_open') this.reportFault(door);
      this.report(reportOnFailedUnlock(visit, unlocked), new Date());
      this.d.settled();
      return unlocked === 'did_not_open' ? { kind: 'door_failed', door } : { kind: 'unavailable' };
    }
    this.background(s, async () => {
      // A pickup's door not seen shut within the close timeout is not waited for: it is
      // settled by the service (after an unanswered unlock, twice that, as for any door).
      const giveUp = (unlocked === 'unknown' ? 2 : 1) * this.d.leftOpenAfterMs;
      const left = await this.watchTakeOut(s, giveUp);
      if (!left) return;
      const taken = this.settleTakeOut(s, visit, left);
      // Settled (taken or left inside): the same word for each parcel of the door.
      if (s.phase === 'reported')
        for (const other of others)
          this.report(reportOnClose({ kind: 'pickup', ...other }, !taken), left.at);
    });
    const opened = this.opened(s, unlocked);
    return others.length > 0 ? { ...opened, parcels: others.length + 1 } : opened;
  }

  /**
   * A door that will not open is reported (the service takes it out of service and moves
   * the parcel back); once that report got through, the service assigns another door, once.
   */
  async deposit(
    parcel: { courierNo: string; trackingNumber: string },
    assign: () => Promise<number | Refusal>,
  ): Promise<DepositResult> {
    const visit: Visit = { kind: 'deposit', ...parcel };
    for (let attempt = 0; attempt < 2; attempt++) {
      const door = await assign();
      if (typeof door !== 'number') return door;
      // The deposit is undone: the parcel never went in.
      if (await this.refused(door, visit)) return { kind: 'door_out_of_service', door };
      const s = this.d.sessions.begin('deposit', door, { trackingNumber: parcel.trackingNumber });
      const unlocked = await this.unlock(s, visit);
      if (unlocked === 'controller_down') {
        // The parcel never went in: its recipient must not be sent here.
        this.report(reportOnFailedUnlock(visit, unlocked), new Date());
        this.d.settled();
        return { kind: 'unavailable' };
      }
      if (unlocked === 'did_not_open') {
        const fault = this.reportFault(s.door);
        await this.d.queue.replay();
        if (attempt === 1 || this.d.queue.isPending(fault))
          return { kind: 'door_failed', door: s.door };
        continue;
      }
      this.background(s, async () => {
        const closed = await this.watch(s);
        if (!closed) return;
        s.to({ phase: 'closed', ...judged('deposit', closed.itemPresent) });
        // Shut empty: the parcel never went in, so its recipient must not be sent here.
        this.report(reportOnClose(visit, closed.itemPresent), closed.at);
        s.to({ phase: 'reported', ...judged('deposit', closed.itemPresent) });
      });
      return this.opened(s, unlocked);
    }
    return { kind: 'unavailable' };
  }

  async startReturn(
    door: number,
    returnId: string,
    trackingNumber?: string,
  ): Promise<ReturnResult> {
    const visit: Visit = {
      kind: 'return',
      returnId,
      ...(trackingNumber ? { trackingNumber } : {}),
    };
    // Its hold is released: the door never opened, so it is empty.
    if (await this.refused(door, visit)) return { kind: 'door_out_of_service', door };
    const s = this.d.sessions.begin('return', door, trackingNumber ? { trackingNumber } : {});
    const unlocked = await this.unlock(s, visit);
    if (unlocked === 'did_not_open' || unlocked === 'controller_down') {
      // The door never opened, so it is empty: releasing its hold is safe.
      if (unlocked === 'did_not_open') this.reportFault(door);
      this.report(reportOnFailedUnlock(visit, unlocked), new Date());
      this.d.settled();
      return unlocked === 'did_not_open' ? { kind: 'door_failed', door } : { kind: 'unavailable' };
    }
    this.background(s, () => this.finishReturn(s, visit, returnId));
    return this.opened(s, unlocked);
  }

  private async finishReturn(s: Session, visit: Visit, returnId: string): Promise<void> {
    for (;;) {
      const closed = await this.watch(s);
      if (!closed) return;
      const record = (deposited: boolean, at: Date) =>
        this.d.queue.add('return', { returnId, deposited }, at);
      const step = returnClosedStep(s.phase === 'take_out_and_close', closed.itemPresent);
      if (step === 'record') {
        // Not cancelled: the sensor decides; an empty door is no return and is released.
        s.to({ phase: 'closed', ...judged('return', closed.itemPresent) });
        this.report(reportOnClose(visit, closed.itemPresent), closed.at);
        s.to({ phase: 'reported', ...judged('return', closed.itemPresent) });
        return;
      }
      if (step === 'release') {
        // Cancelled, and the door seen shut and empty: only now is the hold released.
        record(false, closed.at);
        s.to({ phase: 'cancelled' });
        return;
      }
      // Cancelled, but shut on the parcel: that is no cancel. Ask; never release it.
      s.to({ phase: 'closed_with_item_choice' });
      const choice = {
        session: s,
        answer: deferred<Choice>(),
        outcome: deferred<ReturnChoiceResult>(),
      };
      this.choice = choice;
      const timer = setTimeout(() => choice.answer.resolve('finish'), this.d.leftOpenAfterMs);
      const answer = await choice.answer.promise;
      clearTimeout(timer);
      this.choice = null;
      if (answer === 'finish') {
        record(true, closed.at);
        s.to({ phase: 'reported', ...judged('return', true) }, { chosen: 'finish' });
        choice.outcome.resolve({ kind: 'finished' });
        return;
      }
      s.to({ phase: 'unlocking' }, { chosen: 'reopen' });
      const unlocked = await this.unlock(s, visit);
      if (unlocked === 'did_not_open' || unlocked === 'controller_down') {
        // The parcel is inside a door that will not open: recorded, never released; the
        // fault report follows the return's (the queue keeps their order).
        record(true, closed.at);
        if (unlocked === 'did_not_open') this.reportFault(s.door);
        s.to({ phase: 'reported', ...judged('return', true) });
        choice.outcome.resolve({ kind: 'door_failed', door: s.door });
        return;
      }
      s.to({ phase: 'take_out_and_close' });
      choice.outcome.resolve(
        unlocked === 'unknown' ? { kind: 'door_unknown', door: s.door } : { kind: 'reopened' },
      );
    }
  }

  /**
   * A door opened over the live link, in a session of its own: the same unlock (one
   * pulse at most) and the same watch as any visit's. Answers the driver's outcome as it
   * came: opened, already_open, did_not_open (reported as a door fault, as always), or
   * unknown (the controller silent after the pulse, or before it: `pulses` says which).
   * Nothing else is reported: the outcome goes back over the link, and the door's
   * sensor states follow it there.
   */
  async remoteOpen(
    s: Session,
  ): Promise<{ outcome: OpenOutcome; pulses: 0 | 1; seenOpenAfterMs: number | null }> {
    let result: OpenResult | undefined;
    const unlocked = await this.unlock(s, null, (r) => (result = r));
    if (unlocked === 'did_not_open') this.reportFault(s.door);
    if (unlocked === 'open' || unlocked === 'found_open' || unlocked === 'unknown') {
      this.background(s, async () => {
        const closed = await this.watch(s);
        if (!closed) return;
        s.to({ phase: 'closed', ...judged('remote', closed.itemPresent) });
        s.to({ phase: 'reported', ...judged('remote', closed.itemPresent) });
      });
    } else {
      this.d.settled();
    }
    return result
      ? { outcome: result.outcome, pulses: result.pulses, seenOpenAfterMs: result.seenOpenAfterMs }
      : { outcome: 'unknown', pulses: 0, seenOpenAfterMs: null };
  }

  cancelReturn(): CancelReturnResult {
    const s = this.d.sessions.current('return');
    if (!s || !returnCancellable(s.phase)) {
      return { kind: 'not_cancellable' };
    }
    s.to({ phase: 'take_out_and_close' }, { asked: 'cancel' });
    return { kind: 'take_out_and_close' };
  }

  /** The customer's answer to "finish the return or open the door again?". */
  async choose(answer: Choice): Promise<ReturnChoiceResult> {
    const choice = this.choice;
    if (!choice || choice.session !== this.d.sessions.current('return')) {
      return { kind: 'no_choice_pending' };
    }
    choice.answer.resolve(answer);
    return choice.outcome.promise;
  }
}
