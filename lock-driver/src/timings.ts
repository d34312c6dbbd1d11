/**
 * The bus timings: the one place they are set. The kiosk (through LockBoard's defaults)
 * and lockctl use these same values; tests may pass others.
 *
 * A healthy board answers in a few milliseconds. What makes a reply slow is what lies
 * between: a USB adapter delivering in bursts, a TCP bus gateway that holds bytes and
 * packs them (its "packing interval", often 10 to 50 ms, some far more), a loaded kiosk.
 * So a reply is timed in two parts: its first byte must come within `replyTimeoutMs` of
 * the request leaving, and after that the reply may trickle, each byte within
 * `interByteTimeoutMs` of the one before (a gateway 30 ms between bytes delivers a 9-byte
 * reply in 240 ms; one holding up to 99 ms between bytes, in under 800 ms).
 *
 * A reply that comes after its request timed out must never be read as the answer to the
 * next question: after any exchange that did not end cleanly (a timeout, a broadcast's
 * listening window, bytes nobody asked for), no request leaves until the line has been
 * silent for the guard time, and what is heard meanwhile is dropped as late.
 */
export interface BusTimings {
  /** From the request leaving to the first byte of its reply. */
  replyTimeoutMs: number;
  /**
   * The longest pause between two bytes of one reply, and the guard: the silence the line
   * must keep after an exchange that did not end cleanly before the next request leaves.
   */
  guardMs: number;
  /** Status reads of a board before it counts as silent (a noisy line loses replies). */
  readAttempts: number;
  /** Settings queries (firmware, unlock time) asked before giving up; settings are sent once. */
  queryAttempts: number;
  /** Silence after a setting is written: the board saves to flash ("wait over 500 ms"). */
  flashWriteMs: number;
}

export const BUS_TIMINGS: Readonly<BusTimings> = Object.freeze({
  replyTimeoutMs: 300,
  guardMs: 100,
  readAttempts: 4,
  queryAttempts: 3,
  flashWriteMs: 600,
});

/** How a door is opened: see doors/open.ts. */
export interface DoorTimings {
  /** Quiet time after the unlock before the first poll (the board's turnaround). */
  turnaroundMs: number;
  /** Status poll period while a door is being opened. */
  pollIntervalMs: number;
  /** How long after the pulse a door may take to be seen open. */
  openTimeoutMs: number;
}

export const DOOR_TIMINGS: Readonly<DoorTimings> = Object.freeze({
  turnaroundMs: 20,
  pollIntervalMs: 20,
  openTimeoutMs: 1500,
});
