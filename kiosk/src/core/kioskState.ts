import { EventEmitter } from 'node:events';
import { INITIAL_STATE, outOfService, type KioskState } from '../bridge/api';
import { HEALTHY, conditionOf, type Health } from './condition';
import type { KioskLog } from './log';

export interface StateEvents {
  /** The condition came back to `ok` or `degraded` from another: what waited can go out. */
  backInService(): void;
}

/**
 * The one copy of what the screen shows (`KioskState`) and of the health it is judged
 * from. The service link, the controller poll and the door flows write here; every change
 * is emitted at once as 'state'.
 */
export class KioskStateStore extends EventEmitter<{ state: [KioskState] }> {
  private current: KioskState = INITIAL_STATE;
  private health: Health = HEALTHY;

  constructor(
    private readonly log: KioskLog,
    private readonly events: StateEvents,
  ) {
    super();
  }

  get state(): KioskState {
    return this.current;
  }

  /** The last heartbeat was refused (401): disabled or revoked by an operator. */
  get refused(): boolean {
    return this.health.refused;
  }

  get serviceReachable(): boolean {
    return this.health.serviceReachable;
  }

  update(change: Partial<KioskState>): void {
    this.current = { ...this.current, ...change };
    this.emit('state', this.current);
  }

  setHealth(change: Partial<Health>): void {
    this.health = { ...this.health, ...change };
    const condition = conditionOf(this.health);
    const { unknownDoors, suspectDoors } = this.health;
    if (condition !== this.current.condition) {
      const from = this.current.condition;
      const level = condition === 'ok' ? 'info' : 'warn';
      this.log[level]({ from, to: condition, unknownDoors, suspectDoors }, 'condition');
      this.update({
        condition,
        conditionSince: new Date().toISOString(),
        unknownDoors,
        suspectDoors,
      });
      // Only coming back: a board going silent or answering again (ok and degraded, each
      // half second if it flaps) is no reason to hurry the queued reports.
      if (!outOfService(condition) && outOfService(from)) this.events.backInService();
    } else if (
      unknownDoors.join() !== this.current.unknownDoors.join() ||
      suspectDoors.join() !== this.current.suspectDoors.join()
    ) {
      this.update({ unknownDoors, suspectDoors });
    }
  }
}
