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

export interface BoardReading {
  board: number;
  reachable: boolean;
}

export interface CabinetReading {
  /** Every door of the cabinet, in position order; a silent board's doors are known: false. */
  doors: DoorReading[];
  boards: BoardReading[];
  /**
   * Boards every door of which (two or more, as the cabinet maps them) reads open at
   * once: most likely the hook polarity is wrong (normally-closed switches read as the
   * vendor's normally-open ones, or the other way), not a cabinet standing wide open.
   * Nothing on such a board should be opened or trusted until a technician looked.
   */
  suspectPolarity: number[];
}

/** A door whose reading changed between two reads of the cabinet (see LockBoard.watchDoors). */
export interface DoorChange {
  position: number;
  /** The reading before; undefined on the first read. */
  before: DoorReading | undefined;
  now: DoorReading;
  /** Known before and now, shut before and open now: a door seen opening. */
  opened: boolean;
  /** Known before and now, open before and shut now. */
  closed: boolean;
  at: Date;
}

export interface WatchDoorsOptions {
  /** Pause between two reads of the whole cabinet; default 500 ms. */
  intervalMs?: number;
  signal?: AbortSignal;
  /** Every read of the cabinet, board reachability and suspect polarity included. */
  onReading?: (reading: CabinetReading) => void;
  /** Each door whose reading changed (open/shut, item, known/unknown), the first read too. */
  onChange?: (change: DoorChange) => void;
}

/** A board's settings read back and compared with what the cabinet file recorded at commissioning. */
export interface BoardCheck {
  board: number;
  reachable: boolean;
  software?: number;
  hardware?: number;
  unlockTimeMs?: number;
  /** Sentences, one per setting that differs from the cabinet file (empty: as commissioned). */
  differences: string[];
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
