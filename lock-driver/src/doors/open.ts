import { setTimeout as sleep } from 'node:timers/promises';
import type { DoorReading, OpenResult } from './types';

/** What `openDoor` needs from the board: one status read and one unlock, nothing more. */
export interface OpenPort {
  /** One status read of the door's board, no retry: a known reading, or known: false when silent. */
  read(position: number, urgent: boolean): Promise<DoorReading>;
  /**
   * Sends the unlock; resolves once the frame has left, with when (performance.now()) it
   * was handed to the line. Rejects only if it never went out.
   */
  pulse(position: number): Promise<number>;
}

export interface OpenTimings {
  /** Quiet time after the pulse before the first poll: a board busy driving the solenoid misses it. */
  turnaroundMs: number;
  pollIntervalMs: number;
  /** How long after the pulse a door may take to be seen open. */
  openTimeoutMs: number;
  /** Reads tried before the pulse, and after openTimeoutMs, before calling the board silent. */
  attempts: number;
}

/**
 * Unanswered reads in a row after the pulse that mean the board went away rather than a
 * reply was lost. A board whose supply sags when the solenoid pulls (a brown-out) resets,
 * loses the pulse and is silent for a while: the door then reads shut through no fault of
 * its lock, so such a window gives `unknown`, never `did_not_open`.
 */
export const SILENT_READS_AFTER_PULSE = 2;

/**
 * One pulse, a known outcome. The door is read first (an open door gets no pulse); the
 * unlock goes out once; after the board's turnaround the door is polled, and a lost or
 * corrupt reply is just another poll: once the pulse went out this never throws, since
 * the door may be standing open in front of a customer.
 */
export async function openDoor(
  port: OpenPort,
  position: number,
  timings: OpenTimings,
): Promise<OpenResult> {
  const started = performance.now();
  let before: DoorReading | undefined;
  const result = (
    outcome: OpenResult['outcome'],
    pulses: 0 | 1,
    seen: number | null,
  ): OpenResult => ({
    position,
    outcome,
    pulses,
    elapsedMs: performance.now() - started,
    seenOpenAfterMs: seen,
    before: before?.known ? { closed: before.closed, itemPresent: before.itemPresent } : null,
  });

  for (let i = 0; i < timings.attempts && !before?.known; i++)
    before = await port.read(position, true);
  if (!before?.known) return result('unknown', 0, null);
  if (!before.closed) return result('already_open', 0, null);

  // Timed from the moment the frame was handed to the line, not from when the write call
  // returned (the board may act on it before that), nor from before a wait in the bus's
  // queue: a door is never seen open "before" its pulse, nor later than it was.
  const pulsedAt = await port.pulse(position);
  await sleep(timings.turnaroundMs);
  let silentAfterDeadline = 0;
  let silentInARow = 0;
  /** The board was heard through the window: no run of SILENT_READS_AFTER_PULSE misses. */
  let heardThroughout = true;
  for (;;) {
    // Disconnected after the pulse, or any other failure: keep trying until time is up.
    const reading = await port.read(position, true).catch(() => undefined);
    const now = performance.now();
    const late = now - pulsedAt >= timings.openTimeoutMs;
    if (reading?.known) {
      silentInARow = 0;
      if (!reading.closed) return result('opened', 1, now - pulsedAt);
      // Shut, after a window the board was silent in: it may have lost the pulse.
      if (late) return result(heardThroughout ? 'did_not_open' : 'unknown', 1, null);
    } else {
      if (++silentInARow >= SILENT_READS_AFTER_PULSE) heardThroughout = false;
      if (late && ++silentAfterDeadline >= timings.attempts) return result('unknown', 1, null);
    }
    await sleep(timings.pollIntervalMs);
  }
}
