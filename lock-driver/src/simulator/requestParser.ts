import { ETX, STX, checksum } from '../protocol/frame';
import { F5, F5_HEADER, f5Checksum, f5Length } from '../protocol/vendor';

export interface RequestFrame {
  /** STX frames, or the vendor's F5 framing (version query, firmware upgrade). */
  framing: 'stx' | 'f5';
  addr: number;
  cmd: number;
  data: number[];
  raw: Buffer;
}

/** What a board does with bytes that are not a request: the monitor and tests see it. */
export type Discard = { bytes: Buffer; why: 'stray' | 'inter-byte timeout' };

/**
 * The board's side of the line. STX requests are 5 to 7 bytes (0 to 2 data bytes) with
 * no length byte, so at each STX the board takes the first length whose ETX and SUM check
 * out; an F5 request carries its data length. Like a board it is strict: bytes before a
 * request's start are dropped at once (a stray 0x02 does not stall the next request),
 * and a request whose bytes stop coming for longer than the inter-byte timeout is thrown
 * away.
 */
export class RequestParser {
  private buffer = Buffer.alloc(0);
  private lastByteAt = 0;

  constructor(
    private readonly interByteTimeoutMs = 20,
    private readonly discarded: (d: Discard) => void = () => {},
  ) {}

  push(chunk: Uint8Array, now = performance.now()): RequestFrame[] {
    if (this.buffer.length > 0 && now - this.lastByteAt > this.interByteTimeoutMs) {
      this.discarded({ bytes: this.buffer, why: 'inter-byte timeout' });
      this.buffer = Buffer.alloc(0);
    }
    this.lastByteAt = now;
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const frames: RequestFrame[] = [];
    for (;;) {
      const found = this.firstFrame();
      if (found) {
        if (found.start > 0)
          this.discarded({ bytes: this.buffer.subarray(0, found.start), why: 'stray' });
        const raw = Buffer.from(this.buffer.subarray(found.start, found.start + found.length));
        frames.push(
          raw[0] === F5
            ? {
                framing: 'f5',
                cmd: raw[1]!,
                addr: raw[2]!,
                data: [...raw.subarray(F5_HEADER)],
                raw,
              }
            : { framing: 'stx', addr: raw[1]!, cmd: raw[2]!, data: [...raw.subarray(3, -2)], raw },
        );
        this.buffer = this.buffer.subarray(found.start + found.length);
        continue;
      }
      // Keep only what may still become a request: from the first start that leaves room.
      const keepFrom = this.pendingStart();
      if (keepFrom > 0) this.discarded({ bytes: this.buffer.subarray(0, keepFrom), why: 'stray' });
      this.buffer = this.buffer.subarray(keepFrom);
      return frames;
    }
  }

  private starts(): number[] {
    const at: number[] = [];
    this.buffer.forEach((b, i) => {
      if (b === STX || b === F5) at.push(i);
    });
    return at;
  }

  /** The earliest complete, checked request in the buffer. */
  private firstFrame(): { start: number; length: number } | undefined {
    for (const start of this.starts()) {
      const rest = this.buffer.subarray(start);
      if (rest[0] === F5) {
        const length = f5Length(rest);
        if (length > 0 && rest.length >= length && f5Checksum(rest.subarray(0, length)) === rest[5])
          return { start, length };
        continue;
      }
      const length = [5, 6, 7].find(
        (n) => rest.length >= n && rest[n - 2] === ETX && checksum(rest, n - 1) === rest[n - 1],
      );
      if (length) return { start, length };
    }
    return undefined;
  }

  /** Where an incomplete request may start: the first start that may still complete. */
  private pendingStart(): number {
    for (const start of this.starts()) {
      const rest = this.buffer.subarray(start);
      if (rest[0] === F5) {
        const length = f5Length(rest);
        if (length === 0 || (length > 0 && rest.length < length)) return start;
      } else if (rest.length < 7) return start;
    }
    return this.buffer.length;
  }
}
