import { versionQuery } from './vendor';
import {
  BAUD_CODES,
  BROADCAST,
  Command,
  ETX,
  address,
  checksum,
  encodeRequest,
  type BaudRate,
} from './frame';

/** Builders of every request the board understands, by meaning rather than by byte. */
export const requests = {
  status: (board: number) => encodeRequest(address(board), Command.status),
  unlock: (board: number, lock: number) => encodeRequest(address(board, lock), Command.unlock),
  statusAll: () => encodeRequest(BROADCAST, Command.statusAll),
  openAll: (board: number) => encodeRequest(address(board), Command.openAll),
  queryUnlockTime: (board: number) => encodeRequest(address(board), Command.unlockTime),
  /** Pulse in milliseconds, sent in units of 10 ms, big-endian. */
  setUnlockTime: (board: number, ms: number) => {
    const units = Math.round(ms / 10);
    return encodeRequest(address(board), Command.unlockTime, [(units >> 8) & 0xff, units & 0xff]);
  },
  setBaud: (board: number, baud: BaudRate) =>
    encodeRequest(address(board), Command.setBaud, [BAUD_CODES[baud]]),
  /** Delayed unlock in whole seconds, 0 to 250 (0: none, the factory setting). */
  setUnlockDelay: (board: number, seconds: number) =>
    encodeRequest(address(board), Command.unlockDelay, [seconds & 0xff]),
  /** The vendor's own framing: `F5 B6 ADDR 00 5F SUM` (see vendor.ts). */
  version: (board: number) => versionQuery(board),
};

/**
 * Requests have no length byte, so a board takes the first 5 or 6 bytes that end in ETX
 * and a right SUM as the whole request. Data whose bytes happen to look like that end
 * (an unlock time of 8280 ms on board 0: `02 00 37 03 3C 03 ..`) is read as another,
 * shorter request: such a frame cannot be sent.
 */
export function readsAsShorterFrame(bytes: Buffer): boolean {
  for (let n = 5; n < bytes.length; n++)
    if (bytes[n - 2] === ETX && checksum(bytes, n - 1) === bytes[n - 1]) return true;
  return false;
}
