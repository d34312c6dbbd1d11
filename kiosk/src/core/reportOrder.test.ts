import { describe, expect, it } from 'vitest';
import type { ReportKind } from './client';
import { claimWindow, parcelOf, type QueuedReport } from './reportOrder';

const NOW = 1_000_000;
let nextId = 1;

/** A queued report; `waits` puts it in backoff (not due before NOW + 1 s). */
function report(kind: ReportKind, body: object, waits = false): QueuedReport {
  return {
    id: nextId++,
    kind,
    body: JSON.stringify(body),
    occurred_at: new Date(NOW).toISOString(),
    attempts: waits ? 1 : 0,
    next_attempt_at: waits ? NOW + 1000 : NOW,
  };
}
const door = (shipmentId: string, waits = false) =>
  report('door', { shipmentId, collected: true }, waits);
const ret = (returnId: string, deposited: boolean, waits = false) =>
  report('return', { returnId, deposited }, waits);
const fault = (position: number, waits = false) =>
  report('door_fault', { position, problem: 'did_not_open' }, waits);

const ids = (window: QueuedReport[], queue: QueuedReport[]) => window.map((r) => queue.indexOf(r));

describe('which queued reports may go out now', () => {
  it("holds back a parcel's later report while an earlier one of it waits out its backoff", () => {
    const queue = [ret('r1', false, true), door('s1'), ret('r1', true)];
    expect(ids(claimWindow(queue, NOW, 16), queue)).toEqual([1]);
    // Once the earlier one is due again, it goes first, and the later one after it.
    expect(ids(claimWindow(queue, NOW + 1000, 16), queue)).toEqual([0, 1]);
  });

  it('sends reports of different parcels side by side, one per parcel, in queue order', () => {
    const queue = [door('s1'), door('s2'), door('s1'), door('s3')];
    // The window ends at the first report of a parcel already in it.
    expect(ids(claimWindow(queue, NOW, 16), queue)).toEqual([0, 1]);
    expect(ids(claimWindow(queue, NOW, 1), queue)).toEqual([0]);
  });

  it('sends a door fault alone, only once nothing before it waits, and nothing after it before it', () => {
    const first = [door('s1'), fault(3), door('s2')];
    expect(ids(claimWindow(first, NOW, 16), first)).toEqual([0]);
    const alone = [fault(3), door('s2')];
    expect(ids(claimWindow(alone, NOW, 16), alone)).toEqual([0]);
    const behindWaiting = [door('s1', true), fault(3), door('s2')];
    expect(claimWindow(behindWaiting, NOW, 16)).toEqual([]);
    const waitingFault = [fault(3, true), door('s2')];
    expect(claimWindow(waitingFault, NOW, 16)).toEqual([]);
  });

  it('reads the queue only as far as the window needs', () => {
    let read = 0;
    function* cursor() {
      for (let i = 0; i < 100; i++) {
        read++;
        yield door(`s${i}`);
      }
    }
    expect(claimWindow(cursor(), NOW, 16)).toHaveLength(16);
    expect(read).toBe(16);
  });

  it('names a parcel by its shipment, return or tracking number', () => {
    expect(parcelOf(door('s9'))).toBe('s9');
    expect(parcelOf(ret('r9', true))).toBe('r9');
    expect(parcelOf(report('deposit_undo', { courierNo: 'c', trackingNumber: 'T9' }))).toBe('T9');
  });
});
