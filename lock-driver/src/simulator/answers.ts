import {
  BAUD_CODES,
  BROADCAST,
  Command,
  LOCKS_PER_BOARD,
  Reply,
  address,
  encodeResponse,
} from '../protocol/frame';
import type { RequestFrame } from './requestParser';

/** What the protocol side needs of a simulated cabinet. */
export interface BoardSide {
  /** Boards that answer now, ascending (a dead or missing board stays silent). */
  answering(): number[];
  statusData(board: number): [number, number, number, number];
  pulse(board: number, lockIndex: number, delayMs?: number): void;
  unlockUnits: number[];
  /** The most a board keeps (a board that silently caps what it is sent); default 65535. */
  maxUnlockUnits: number;
  baudCode: number;
  firmware: [number, number, number, number];
}

const BAUD_CODE_VALUES: number[] = Object.values(BAUD_CODES);

/**
 * A KR-CU16's answers, byte for byte as in shared/hardware/kerong-cu16.md: 0x35 to a
 * status (0x30, and 0x39 as older drivers ask it), nothing to an unlock, one 0x36 frame
 * per board in turn to 0x32 (sent at F0, or at 00 as some deployed drivers do), 0x38 with
 * the hook bits and the time to a 0x37 query and zeros and the time to a 0x37 set, 0x40
 * echoing the baud code, B6 with the firmware to F5. The F0 forms of 0x37 and 0x40 reach
 * every board, which answer in turn.
 */
export function answerRequest(side: BoardSide, request: RequestFrame): Buffer[] {
  const answering = side.answering();
  const broadcast = request.addr === BROADCAST;
  if (request.cmd === Command.statusAll) {
    if (request.addr !== BROADCAST && request.addr !== 0x00) return [];
    return answering.map((b) => encodeResponse(address(b), Reply.statusAll, side.statusData(b)));
  }
  const targets = broadcast ? answering : answering.filter((b) => b === request.addr >> 4);
  return targets.flatMap((board) => answerOne(side, board, request, broadcast));
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
  switch (request.cmd) {
    case Command.status:
    case Command.lockStatus:
      if (broadcast) return [];
      return reply(Reply.status, side.statusData(board));
    case Command.unlock:
      if (!broadcast) side.pulse(board, lockIndex);
      return [];
    case Command.openAll: {
      if (broadcast) return [];
      // Opens every lock in turn, one pulse apart; answers the status at the start.
      const answer = reply(Reply.status, side.statusData(board));
      for (let i = 0; i < LOCKS_PER_BOARD; i++)
        side.pulse(board, i, i * side.unlockUnits[board]! * 10);
      return answer;
    }
    case Command.unlockTime: {
      if (request.data.length === 2) {
        const asked = (request.data[0]! << 8) | request.data[1]!;
        side.unlockUnits[board] = Math.min(asked, side.maxUnlockUnits);
        const units = side.unlockUnits[board];
        return reply(Reply.unlockTime, [0, 0, units >> 8, units & 0xff]);
      }
      if (request.data.length !== 0) return [];
      const units = side.unlockUnits[board]!;
      const [d1, d2] = side.statusData(board);
      return reply(Reply.unlockTime, [d1, d2, units >> 8, units & 0xff]);
    }
    case Command.setBaud: {
      const code = request.data[0];
      if (request.data.length !== 1 || code === undefined || !BAUD_CODE_VALUES.includes(code))
        return [];
      side.baudCode = code;
      return reply(Reply.setBaud, [code, 0, 0, code]);
    }
    case Command.firmware:
      if (broadcast) return [];
      return reply(Reply.firmware, side.firmware);
    default:
      return [];
  }
}
