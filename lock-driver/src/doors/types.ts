/** What became of an `open()`: a closed set, each with its timings. */
export type OpenOutcome =
  /** The door was seen open after the pulse. */
  | 'opened'
  /** The door was already open before anything was sent (propped, or the lock jammed open): no pulse. */
  | 'already_open'
  /**
   * The pulse went out, the board answered through the whole window (no more than one
   * reply in a row lost) and the door was still seen closed when time ran out (jammed,
   * dead lock).
   */
  | 'did_not_open'
  /**
   * The board stayed silent: after the pulse (it may have opened; nobody knows), or went
   * silent after the pulse and came back with the door shut (a brown-out that reset the
   * board and lost the pulse: not the lock's fault), or before it (pulses: 0, nothing
   * sent; a board that cannot answer cannot pulse either).
   */
  | 'unknown';

export interface OpenResult {
  position: number;
  outcome: OpenOutcome;
  /** 1 when the unlock frame went out, 0 when none was sent (already_open). */
  pulses: 0 | 1;
  /** From the call to the outcome being known. */
  elapsedMs: number;
  /** From the unlock frame leaving to the door being seen open; null unless 'opened'. */
  seenOpenAfterMs: number | null;
  /**
   * The door as read just before the pulse (or instead of it, for already_open): whether
   * it stood open and what its item sensor read. null when the board did not answer.
   */
  before: { closed: boolean; itemPresent: boolean } | null;
}

export type DoorReading =
  | {
      position: number;
      board: number;
      lock: number;
      known: true;
      closed: boolean;
      itemPresent: boolean;
    }
  | { position: number; board: number; lock: number; known: false };

export interface CabinetReading {
  /** Every door of the cabinet, in position order; a silent board's doors are known: false. */
  doors: DoorReading[];
  boards: { board: number; reachable: boolean }[];
}

export type CloseOutcome = 'closed_with_item' | 'closed_empty' | 'left_open' | 'aborted';

export interface WatchClosedOptions {
  /** onLeftOpen is called once when the door is still open this long after the call. */
  leftOpenAfterMs: number;
  onLeftOpen?: () => void;
  signal?: AbortSignal;
  /** A door seen open and empty after leftOpenAfterMs counts as closed_empty. */
  doneWhenEmpty?: boolean;
  /** Answer 'left_open' once this much time has passed (unset: watch until closed). */
  giveUpAfterMs?: number;
  pollIntervalMs?: number;
}

export interface WatchClosedResult {
  outcome: CloseOutcome;
  at: Date;
  elapsedMs: number;
}
