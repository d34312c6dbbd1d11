// The vendor's second framing (shared/hardware/kerong-cu16.md, "The version query and the
// OTA command"): `F5 CMD ADDR DATALEN 5F SUM [DATA]`, SUM being the low byte of the sum of
// every other byte of the frame, the data after it included; ADDR is the board number
// itself (0x00 to 0x10), 0x64 asks every board.
//
// Of the commands in this framing the driver can build exactly one, the version query
// (0xB6): the other one the vendor documents erases the board's application, and a board
// that receives it stops working until it is re-flashed. There is no general encoder
// here on purpose; the Bus refuses to send any F5 frame that is not a version query.

export const F5 = 0xf5;
/** The fixed fifth byte of every F5 frame. */
export const F5_MARK = 0x5f;
/** The version query, answered with the same command byte: software and hardware version. */
export const VERSION = 0xb6;
/** The F5 ADDR every board answers, each in turn. */
export const EVERY_BOARD = 0x64;
/** Highest board number the F5 framing addresses. */
export const MAX_F5_BOARD = 0x10;
/** Header bytes before the data: F5 CMD ADDR DATALEN 5F SUM. */
export const F5_HEADER = 6;
/** The longest data a reply in this framing is taken to carry (the vendor's is 4 bytes). */
export const MAX_F5_DATA = 16;

/** Low byte of the sum of every byte but the SUM itself (index 5). */
export function f5Checksum(bytes: Uint8Array): number {
  let sum = 0;
  bytes.forEach((b, i) => {
    if (i !== 5) sum += b;
  });
  return sum & 0xff;
}

/** `F5 B6 ADDR 00 5F SUM`: the software and hardware version of one board. */
export function versionQuery(board: number): Buffer {
  if (!Number.isInteger(board) || board < 0 || board > MAX_F5_BOARD)
    throw new RangeError(`the version query addresses boards 0 to ${MAX_F5_BOARD}, not ${board}`);
  const frame = Buffer.from([F5, VERSION, board, 0x00, F5_MARK, 0x00]);
  frame[5] = f5Checksum(frame);
  return frame;
}

/** True only for a well-formed version query of one board: the one F5 frame that may leave. */
export function isVersionQuery(bytes: Uint8Array): boolean {
  return (
    bytes.length === F5_HEADER &&
    bytes[0] === F5 &&
    bytes[1] === VERSION &&
    bytes[2]! <= MAX_F5_BOARD &&
    bytes[3] === 0 &&
    bytes[4] === F5_MARK &&
    bytes[5] === f5Checksum(bytes)
  );
}

/** A reply in the F5 framing. */
export interface VendorFrame {
  framing: 'f5';
  cmd: number;
  /** ADDR as sent: the board number itself. */
  addr: number;
  board: number;
  data: Buffer;
  raw: Buffer;
}

/**
 * How many bytes a frame starting with F5 at `bytes[0]` takes: a number once the header is
 * there and plausible, 0 while the header is incomplete, -1 when it cannot be a frame.
 */
export function f5Length(bytes: Uint8Array): number {
  if (bytes.length < F5_HEADER) return 0;
  if (bytes[4] !== F5_MARK || bytes[3]! > MAX_F5_DATA) return -1;
  return F5_HEADER + bytes[3]!;
}

/** A complete F5 frame whose SUM holds, or undefined. */
export function decodeVendorFrame(bytes: Uint8Array): VendorFrame | undefined {
  if (bytes[0] !== F5 || f5Length(bytes) !== bytes.length) return undefined;
  if (f5Checksum(bytes) !== bytes[5]) return undefined;
  return {
    framing: 'f5',
    cmd: bytes[1]!,
    addr: bytes[2]!,
    board: bytes[2]!,
    data: Buffer.from(bytes.subarray(F5_HEADER)),
    raw: Buffer.from(bytes),
  };
}

/** Software and hardware version from a B6 reply (`F5 B6 ADDR 02 5F SUM SW HW`). */
export function decodeVersion(frame: VendorFrame): { software: number; hardware: number } {
  return { software: frame.data[0] ?? 0, hardware: frame.data[1] ?? 0 };
}
