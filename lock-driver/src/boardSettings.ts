import type { Bus } from './bus';
import { LockDriverError } from './errors';
import { BAUD_CODES, Reply, hex, type BaudRate, type ResponseFrame } from './protocol/frame';
import { readsAsShorterFrame, requests } from './protocol/requests';
import { decodeVersion } from './protocol/vendor';

/** The vendor's range for the unlock pulse: a longer pulse overheats a solenoid. */
export const MAX_UNLOCK_TIME_MS = 60_000;
/** The vendor's range for the delayed unlock (0x39); a value over it leaves the board's unchanged. */
export const MAX_UNLOCK_DELAY_S = 250;

export interface FirmwareVersion {
  board: number;
  /** From the vendor's version query (F5 B6): the first data byte. */
  software: number;
  /** The second data byte. */
  hardware: number;
  raw: string;
}

/**
 * A board's own settings: unlock pulse, delayed unlock, baud, firmware. Read-only queries
 * are asked again when a reply is lost (a real bus loses some; asking twice changes
 * nothing), `queryAttempts` times in all. Settings that write are sent once and their
 * echo checked, and the bus then keeps quiet while the board writes its flash.
 */
export class BoardSettings {
  constructor(private readonly bus: Bus) {}

  private async retried<T>(ask: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await ask();
      } catch (error) {
        const lost = error instanceof LockDriverError && error.code === 'TIMEOUT';
        if (!lost || attempt >= this.bus.timings.queryAttempts) throw error;
      }
    }
  }

  private async query(bytes: Buffer, board: number, cmd: number): Promise<ResponseFrame> {
    return this.retried(async () => {
      const [frame] = await this.bus.request({
        bytes,
        expect: { kind: 'one', match: (f) => f.board === board && f.cmd === cmd },
      });
      return frame!;
    });
  }

  /** A setting: sent once, its reply awaited, then the flash write waited out. */
  private async write(bytes: Buffer, board: number, cmd: number): Promise<ResponseFrame> {
    const [frame] = await this.bus.request({
      bytes,
      expect: { kind: 'one', match: (f) => f.board === board && f.cmd === cmd },
      quietAfterMs: this.bus.timings.flashWriteMs,
    });
    return frame!;
  }

  /** The unlock pulse length of a board, in milliseconds (0x37, answered 0x38: D3:D4 x 10 ms). */
  async unlockTime(board: number): Promise<number> {
    const frame = await this.query(requests.queryUnlockTime(board), board, Reply.unlockTime);
    return ((frame.data[2] << 8) | frame.data[3]) * 10;
  }

  /**
   * Sets the pulse, refusing anything outside 0-60 s before a byte is sent, and checks the
   * board's echo: a board that kept another value is an error, not a success. The board
   * saves to flash, so the bus stays quiet after.
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
    const frame = await this.write(bytes, board, Reply.unlockTime);
    const echoed = ((frame.data[2] << 8) | frame.data[3]) * 10;
    if (echoed !== ms)
      throw new LockDriverError(
        'MISMATCH',
        `board ${board} answered an unlock time of ${echoed} ms, not the ${ms} ms asked for`,
      );
    return echoed;
  }

  /**
   * Sets the delayed unlock (0x39): seconds between an unlock request and the pulse, 0 to
   * 250 (0: none, the factory setting). The board answers with its hook and item bits,
   * not the delay, and the vendor gives no query for it: that it answered is all that can
   * be checked, so the way to know a board's delay is to set it (at commissioning and at
   * boot).
   */
  async setUnlockDelay(board: number, seconds: number): Promise<number> {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_UNLOCK_DELAY_S)
      throw new LockDriverError(
        'INVALID_ARGUMENT',
        `the delayed unlock must be 0 to ${MAX_UNLOCK_DELAY_S} s in whole seconds, not ${seconds}`,
      );
    await this.write(requests.setUnlockDelay(board, seconds), board, Reply.unlockDelay);
    return seconds;
  }

  /**
   * Sets the baud of one board (0x40). Its echo carries the hook bits in D1 D2 and the
   * baud code in D4: D4 must name the rate asked for. Resolves once the board has had its
   * flash write; from then on it answers only at `baud`.
   */
  async setBaud(board: number, baud: BaudRate): Promise<BaudRate> {
    const frame = await this.write(requests.setBaud(board, baud), board, Reply.setBaud);
    const code = frame.data[3];
    if (code !== BAUD_CODES[baud]) {
      const named = Object.entries(BAUD_CODES).find(([, c]) => c === code)?.[0];
      throw new LockDriverError(
        'MISMATCH',
        `board ${board} did not confirm ${baud} baud: it answered code ${code}${named ? ` (${named} baud)` : ''}`,
        { detail: `reply ${hex(frame.raw)}` },
      );
    }
    await this.bus.quiet(this.bus.timings.flashWriteMs);
    return baud;
  }

  /** The vendor's version query, `F5 B6 ADDR 00 5F SUM`, answered `F5 B6 ADDR 02 5F SUM SW HW`. */
  async firmware(board: number): Promise<FirmwareVersion> {
    const frame = await this.retried(() => this.bus.version(requests.version(board), board));
    return { board, ...decodeVersion(frame), raw: hex(frame.raw) };
  }
}
