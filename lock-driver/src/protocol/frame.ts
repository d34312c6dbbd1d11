// Kerong KR-CU16 framing (shared/hardware/kerong-cu16.md):
//   request:  STX ADDR CMD [DATA 0-2 bytes, big-endian] ETX SUM
//   response: STX ADDR RCMD D1 D2 D3 D4 ETX SUM   (always 9 bytes)
// SUM is the low 8 bits of the sum of every byte before it.

export const STX = 0x02;
export const ETX = 0x03;
export const RESPONSE_LENGTH = 9;
/** ADDR that every board on the bus answers. */
export const BROADCAST = 0xf0;
export const MAX_BOARD = 9;
export const LOCKS_PER_BOARD = 16;

export const Command = {
  status: 0x30,
  unlock: 0x31,
  statusAll: 0x32,
  openAll: 0x33,
  unlockTime: 0x37,
  /** Delayed unlock: seconds (0-250) between an unlock request and the pulse. */
  unlockDelay: 0x39,
  setBaud: 0x40,
} as const;

export const Reply = {
  status: 0x35,
  statusAll: 0x36,
  unlockTime: 0x38,
  /** Hook bits in D1 D2, item bits in D3 D4 (not the delay: the vendor has no query for it). */
  unlockDelay: 0x39,
  /** Hook bits in D1 D2, the baud code in D4. */
  setBaud: 0x40,
} as const;

/** Baud codes of command 0x40. */
export const BAUD_CODES = { 9600: 0, 19200: 1, 57600: 2, 115200: 3 } as const;
export type BaudRate = keyof typeof BAUD_CODES;
export const BAUD_RATES = Object.keys(BAUD_CODES).map(Number) as BaudRate[];

export function checksum(bytes: Uint8Array | number[], end = bytes.length): number {
  let sum = 0;
  for (let i = 0; i < end; i++) sum += bytes[i]!;
  return sum & 0xff;
}

/** ADDR: board number in the high nibble, lock index (0-15) in the low nibble. */
export function address(board: number, lock = 0): number {
  return ((board & 0x0f) << 4) | (lock & 0x0f);
}

export function encodeRequest(addr: number, cmd: number, data: number[] = []): Buffer {
  const body = [STX, addr, cmd, ...data, ETX];
  return Buffer.from([...body, checksum(body)]);
}

export interface ResponseFrame {
  framing: 'stx';
  addr: number;
  board: number;
  cmd: number;
  data: [number, number, number, number];
  raw: Buffer;
}

/** A 9-byte response whose STX, ETX and SUM are right, or undefined. */
export function decodeResponse(bytes: Uint8Array): ResponseFrame | undefined {
  if (bytes.length !== RESPONSE_LENGTH || bytes[0] !== STX || bytes[7] !== ETX) return undefined;
  if (checksum(bytes, 8) !== bytes[8]) return undefined;
  return {
    framing: 'stx',
    addr: bytes[1]!,
    board: bytes[1]! >> 4,
    cmd: bytes[2]!,
    data: [bytes[3]!, bytes[4]!, bytes[5]!, bytes[6]!],
    raw: Buffer.from(bytes),
  };
}

export function encodeResponse(
  addr: number,
  cmd: number,
  data: [number, number, number, number],
): Buffer {
  const body = [STX, addr, cmd, ...data, ETX];
  return Buffer.from([...body, checksum(body)]);
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes)
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1 ')
    .toUpperCase();
}
