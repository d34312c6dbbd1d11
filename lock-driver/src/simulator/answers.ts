import {
  BAUD_CODES,
  BROADCAST,
  Command,
  LOCKS_PER_BOARD,
  Reply,
  address,
  encodeResponse,
} from '../protocol/frame';
import { EVERY_BOARD, VERSION } from '../protocol/vendor';
import { encodeF5 } from './f5';
import type { RequestFrame } from './requestParser';

/** The F5 command that erases a board's application (firmware upgrade mode). */
const ENTER_UPGRADE = 0xb5;
/** The most seconds of delayed unlock a board keeps; more leaves it unchanged. */
const MAX_DELAY_S = 250;

/** What the protocol side needs of a simulated cabinet. */
export interface BoardSide {
  /** Boards that hear this request and answer now, ascending (dead, unpowered, erased, another rate: not). */
  answering(): number[];
  /** D1 D2 hook bits, D3 D4 item bits. */
  statusData(board: number): [number, number, number, number];
  /** An unlock request reached the board (it applies its delayed unlock). */
  unlock(board: number, lockIndex: number, afterMs?: number): void;
  unlockUnits: number[];
  /** The most a board keeps (a board that silently caps what it is sent); default 65535. */
  maxUnlockUnits: number;
  unlockDelayS: number[];
  /** The board switches to the rate of this 0x40 code (after its echo has left). */
  switchBaud(board: number, code: number): void;
  version(board: number): [number, number];
  /** F5 B5: the board's application is erased; it answers nothing more. */
  erase(board: number): void;
}

const BAUD_CODE_VALUES: number[] = Object.values(BAUD_CODES);

/**
 * A KR-CU16's answers, byte for byte as in shared/hardware/kerong-cu16.md, each reply in
 * the vendor's layout for it: 0x35 (hook bits D1 D2, item bits D3 D4) to a status (0x30)
 * and to 0x33; nothing to an unlock; one 0x36 frame per board in turn to 0x32 (sent at
 * F0, or at 00 as some deployed drivers do); 0x38 with the hook bits and the time (x 10
 * ms) in D3:D4 to a 0x37 query or set; 0x39 with hook and item bits to a delayed-unlock
 * set; 0x40 with the hook bits and the baud code in D4. The F0 forms of 0x37, 0x39 and
 * 0x40 reach every board, which answer in turn. In the F5 framing: B6 with software and
 * hardware version (ADDR the board number, 0x64 every board), and B5, which is answered
 * and then erases the board.
 */
export function answerRequest(side: BoardSide, request: RequestFrame): Buffer[] {
  const answering = side.answering();
  if (request.framing === 'f5') return answerF5(side, answering, request);
  const broadcast = request.addr === BROADCAST;
  if (request.cmd === Command.statusAll) {
    if (request.addr !== BROADCAST && request.addr !== 0x00) return [];
    return answering.map((b) => encodeResponse(address(b), Reply.statusAll, side.statusData(b)));
  }
  const targets = broadcast ? answering : answering.filter((b) => b === request.addr >> 4);
  return targets.flatMap((board) => answerOne(side, board, request, broadcast));
}

function answerF5(side: BoardSide, answering: number[], request: RequestFrame): Buffer[] {
  const targets =
    request.addr === EVERY_BOARD ? answering : answering.filter((b) => b === request.addr);
  if (request.cmd === VERSION && request.data.length === 0)
    return targets.map((b) => encodeF5(VERSION, b, side.version(b)));
  if (request.cmd === ENTER_UPGRADE)
    return targets.map((b) => {
      side.erase(b);
      return encodeF5(ENTER_UPGRADE, b);
    });
  return [];
}

function answerOne(
  side: BoardSide,
  board: number,
  request: RequestFrame,
  broadcast: boolean,
): Buffer[] {
  const lockIndex = request.addr & 0x0f;
  const reply = (cmd: number, data: [number, number, number, number]) => [
    encodeResponse(address(board), cmd, data),
  ];
  const [hookLow, hookHigh] = side.statusData(board);
  switch (request.cmd) {
    case Command.status:
      if (broadcast || request.data.length !== 0) return [];
      return reply(Reply.status, side.statusData(board));
    case Command.unlock:
      if (!broadcast) side.unlock(board, lockIndex);
      return [];
    case Command.openAll: {
      if (broadcast) return [];
      // Opens every lock in turn, one pulse apart; answers the status at the start.
      const answer = reply(Reply.status, side.statusData(board));
      for (let i = 0; i < LOCKS_PER_BOARD; i++)
        side.unlock(board, i, i * side.unlockUnits[board]! * 10);
      return answer;
    }
    case Command.unlockTime: {
      if (request.data.length === 2) {
        const asked = (request.data[0]! << 8) | request.data[1]!;
        side.unlockUnits[board] = Math.min(asked, side.maxUnlockUnits);
      } else if (request.data.length !== 0) return [];
      const units = side.unlockUnits[board]!;
      return reply(Reply.unlockTime, [hookLow, hookHigh, units >> 8, units & 0xff]);
    }
    case Command.unlockDelay: {
      if (request.data.length !== 1) return [];
      if (request.data[0]! <= MAX_DELAY_S) side.unlockDelayS[board] = request.data[0]!;
      return reply(Reply.unlockDelay, side.statusData(board));
    }
    case Command.setBaud: {
      const code = request.data[0];
      if (request.data.length !== 1 || code === undefined || !BAUD_CODE_VALUES.includes(code))
        return [];
      const echo = reply(Reply.setBaud, [hookLow, hookHigh, 0, code]);
      side.switchBaud(board, code);
      return echo;
    }
    default:
      return [];
  }
}
