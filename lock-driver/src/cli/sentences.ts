import type { DoorReading, OpenResult, WatchClosedResult } from '../doors/types';
import type { CycleResult } from '../lockBoard';

const ms = (n: number | null) => `${Math.round(n ?? 0)} ms`;

/** One sentence per open() outcome, as a technician on a ladder needs it. */
export function openSentence(r: OpenResult, board: number): string {
  switch (r.outcome) {
    case 'opened':
      return `door ${r.position} opened (seen open ${ms(r.seenOpenAfterMs)} after the pulse)`;
    case 'already_open':
      return `door ${r.position} was already open, so no pulse was sent: shut it and try again (if it will not stay shut, the lock is jammed open or the hook polarity is wrong)`;
    case 'did_not_open':
      return `door ${r.position} DID NOT OPEN: the pulse went out but the door stayed shut (lock jammed, or no power to it)`;
    case 'unknown':
      return r.pulses === 1
        ? `door ${r.position}: board ${board} stopped answering after the pulse, so whether the door opened is unknown`
        : `door ${r.position}: board ${board} did not answer, so no pulse was sent (check its power, address switches and wiring)`;
    default: {
      const unknown: never = r.outcome;
      return String(unknown);
    }
  }
}

export function closeSentence(position: number, w: WatchClosedResult, waitS: number): string {
  switch (w.outcome) {
    case 'closed_with_item':
      return `door ${position} was shut with an item inside`;
    case 'closed_empty':
      return `door ${position} was shut empty`;
    case 'left_open':
      return `door ${position} was LEFT OPEN (not shut within ${waitS} s)`;
    case 'aborted':
      return `door ${position}: stopped watching`;
    default: {
      const unknown: never = w.outcome;
      return String(unknown);
    }
  }
}

export function doorLine(d: DoorReading): string {
  const state = d.known
    ? `${d.closed ? 'closed' : 'OPEN  '}  ${d.itemPresent ? 'item' : 'empty'}`
    : 'unknown (board silent)';
  return `door ${String(d.position).padStart(3)}  ${state}`;
}

export function cycleLine(r: CycleResult): string {
  const opened = {
    opened: 'opened',
    already_open: 'was already open (no pulse)',
    did_not_open: 'DID NOT OPEN',
    unknown: 'board silent (unknown)',
  }[r.opened];
  const closed = r.closed
    ? `, ${r.closed === 'left_open' ? 'LEFT OPEN' : r.closed.replace(/_/g, ' ')}`
    : '';
  return `door ${r.position}: ${opened}${closed}${r.ok ? '' : '  <- FAILED'}`;
}
