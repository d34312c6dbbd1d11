import type { Collection, CollectedKind, StopCollectingResult } from '../bridge/api';
import type { DoorFlows } from './doorFlows';
import type { Visit } from './doorSteps';

type Parcel = { door: number; trackingNumber: string; kind: CollectedKind };

/**
 * A courier taking out returns and expired parcels: one door at a time, the next opened
 * once the previous one was seen shut. Each parcel taken (door shut empty) is reported
 * through the durable queue; one left inside stays the locker's. The courier may stop at
 * any time: the open door is finished (never abandoned open) and no other door opens.
 */
export class CollectFlow {
  private nextId = 1;
  private current: Collection | null = null;
  private stopAsked = false;

  constructor(
    private readonly flows: DoorFlows,
    private readonly publish: (collection: Collection) => void,
  ) {}

  private set(change: Partial<Collection>): Collection {
    this.current = { ...this.current!, ...change };
    this.publish(this.current);
    return this.current;
  }

  /** Starts taking out `parcels` (the service's order: by door); one run at a time. */
  start(courierNo: string, parcels: Parcel[]): Collection {
    if (this.current && this.current.status !== 'ended') return this.current;
    this.stopAsked = false;
    this.current = null;
    const total = parcels.length;
    const collection = this.set({
      id: this.nextId++,
      total,
      index: 0,
      parcel: null,
      taken: 0,
      status: total > 0 ? 'collecting' : 'ended',
      ended: total > 0 ? null : 'finished',
    });
    if (total > 0) this.run(courierNo, parcels);
    return collection;
  }

  stop(): StopCollectingResult {
    if (!this.current || this.current.status !== 'collecting') return { kind: 'not_collecting' };
    this.stopAsked = true;
    this.set({ status: 'stopping' });
    this.flows.d.log.info({ collection: this.current.id }, 'courier stops taking out');
    return { kind: 'stopping' };
  }

  private run(courierNo: string, parcels: Parcel[]): void {
    const { sessions } = this.flows.d;
    let taken = 0;
    this.flows.background(null, async () => {
      let ended: NonNullable<Collection['ended']> = 'finished';
      try {
        for (const [i, parcel] of parcels.entries()) {
          if (this.stopAsked) {
            ended = 'stopped';
            break;
          }
          this.set({ index: i + 1, parcel });
          const visit: Visit = {
            kind: 'collect',
            courierNo,
            trackingNumber: parcel.trackingNumber,
          };
          // A door on a board that cannot be trusted is not opened: its parcel stays.
          if (await this.flows.refused(parcel.door, visit)) continue;
          const s = sessions.begin('collect', parcel.door, {
            trackingNumber: parcel.trackingNumber,
          });
          const unlocked = await this.flows.unlock(s, visit);
          if (unlocked === 'controller_down') {
            ended = 'controller_down';
            break;
          }
          if (unlocked === 'did_not_open') {
            this.flows.reportFault(parcel.door);
            continue;
          }
          // Watched until shut: the courier finishes each door before the next opens.
          // After an unanswered unlock, twice the close timeout, as for any door.
          const giveUp = unlocked === 'unknown' ? 2 * this.flows.d.leftOpenAfterMs : undefined;
          const left = await this.flows.watchTakeOut(s, giveUp);
          // The kiosk stops: no other door opens (the rest stay for the next courier).
          if (!left && this.flows.stopped) {
            ended = 'stopped';
            break;
          }
          if (!left) continue;
          // Still inside: the courier left it, and it stays the locker's. Found open: the
          // service settles it.
          if (this.flows.settleTakeOut(s, visit, left)) {
            taken++;
            this.set({ taken });
          }
          this.flows.d.settled();
        }
      } finally {
        this.set({ status: 'ended', ended, parcel: null });
        sessions.clear();
      }
    });
  }
}
