import { BAUD_CODES, BROADCAST, Command, address, encodeRequest, type BaudRate } from './frame';

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
};
