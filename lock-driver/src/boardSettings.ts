import type { Bus } from './bus';
import { LockDriverError } from './errors';
import { Reply, hex, type BaudRate } from './protocol/frame';
import { readsAsShorterFrame, requests } from './protocol/requests';

/** The vendor's range for the unlock pulse: a longer pulse overheats a solenoid. */
export const MAX_UNLOCK_TIME_MS = 60_000;

export interface FirmwareVersion {
  board: number;
  /** "major.minor" from D1 and D2 of the 0xB6 reply. */
  version: string;
  /** D3 and D4, as the board sends them (a build number on the boards seen so far). */
  build: number;
  raw: string;
}

/**
 * Read-only queries are asked again when a reply is lost (a real bus loses some); asking
 * twice changes nothing on the board. Settings that write are sent once.
 */
const QUERY_ATTEMPTS = 3;

/** A board's own settings: unlock pulse, baud, firmware. Technician commands, never the kiosk's. */
export class BoardSettings {
  constructor(private readonly bus: Bus) {}

  private async query(bytes: Buffer, board: number, cmd: number) {
    for (let attempt = 1; ; attempt++) {
      try {
        const [frame] = await this.bus.request({
          bytes,
          expect: { kind: 'one', match: (f) => f.board === board && f.cmd === cmd },
        });
        return frame!;
      } catch (error) {
        const lost = error instanceof LockDriverError && error.code === 'TIMEOUT';
        if (!lost || attempt >= QUERY_ATTEMPTS) throw error;
      }
    }
  }

  /** The unlock pulse length of a board, in milliseconds. */
  async unlockTime(board: number): Promise<number> {
    const frame = await this.query(requests.queryUnlockTime(board), board, Reply.unlockTime);
    return ((frame.data[2] << 8) | frame.data[3]) * 10;
  }

  /**
   * Sets the pulse, refusing anything outside 0-60 s before a byte is sent, and checks the
   * board's echo: a board that kept another value is an error, not a success. The board
   * saves to flash, so the bus stays quiet 600 ms after.
   */
  async setUnlockTime(board: number, ms: number): Promise<number> {
    if (!Number.isInteger(ms) || ms < 0 || ms > MAX_UNLOCK_TIME_MS || ms % 10 !== 0) {
      throw new LockDriverError(
        'INVALID_ARGUMENT',
        `unlock time must be 0 to ${MAX_UNLOCK_TIME_MS} ms in steps of 10 ms, not ${ms}`,
      );
    }
    const bytes = requests.setUnlockTime(board, ms);
    if (readsAsShorterFrame(bytes))
      throw new LockDriverError(
        'INVALID_ARGUMENT',
        `${ms} ms cannot be sent to board ${board}: its bytes read as the end of a frame to the board (it would answer a query instead); use ${ms - 10} or ${ms + 10} ms`,
      );
    const [frame] = await this.bus.request({
      bytes,
      expect: { kind: 'one', match: (f) => f.board === board && f.cmd === Reply.unlockTime },
      quietAfterMs: 600,
    });
    const echoed = ((frame!.data[2] << 8) | frame!.data[3]) * 10;
    if (echoed !== ms)
      throw new LockDriverError(
        'MISMATCH',
        `board ${board} answered an unlock time of ${echoed} ms, not the ${ms} ms asked for`,
      );
    return echoed;
  }

  /** Sets the baud of one board; its echo must name the rate asked for. */
  async setBaud(board: number, baud: BaudRate): Promise<BaudRate> {
    const bytes = requests.setBaud(board, baud);
    const [frame] = await this.bus.request({
      bytes,
      expect: { kind: 'one', match: (f) => f.board === board && f.cmd === Reply.setBaud },
      quietAfterMs: 600,
    });
    if (frame!.data[0] !== bytes[3])
      throw new LockDriverError('MISMATCH', `board ${board} did not confirm ${baud} baud`);
    return baud;
  }

  /** The firmware query (F5, answered by B6). */
  async firmware(board: number): Promise<FirmwareVersion> {
    const frame = await this.query(requests.firmware(board), board, Reply.firmware);
    const [d1, d2, d3, d4] = frame.data;
    return {
      board,
      version: `${d1}.${d2}`,
      build: (d3 << 8) | d4,
      raw: hex(frame.raw),
    };
  }
}
