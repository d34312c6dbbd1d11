import { ETX, STX, checksum } from '../protocol/frame';

export interface RequestFrame {
  addr: number;
  cmd: number;
  data: number[];
  raw: Buffer;
}

/** What a board does with bytes that are not a request: the monitor and tests see it. */
export type Discard = { bytes: Buffer; why: 'stray' | 'inter-byte timeout' };

/**
 * The board's side of the line. Requests are 5 to 7 bytes (0 to 2 data bytes) with no
 * length byte, so at each STX the board takes the first length whose ETX and SUM check
 * out. Like a board it is strict: bytes before a request's STX are dropped at once (a
 * stray 0x02 does not stall the next request), and a request whose bytes stop coming for
 * longer than the inter-byte timeout is thrown away.
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
        frames.push({ addr: raw[1]!, cmd: raw[2]!, data: [...raw.subarray(3, -2)], raw });
        this.buffer = this.buffer.subarray(found.start + found.length);
        continue;
      }
      // Keep only what may still become a request: from the last STX that leaves room.
      const keepFrom = this.pendingStart();
      if (keepFrom > 0) this.discarded({ bytes: this.buffer.subarray(0, keepFrom), why: 'stray' });
      this.buffer = this.buffer.subarray(keepFrom);
      return frames;
    }
  }

  /** The earliest complete, checked request in the buffer. */
  private firstFrame(): { start: number; length: number } | undefined {
    for (
      let start = this.buffer.indexOf(STX);
      start >= 0;
      start = this.buffer.indexOf(STX, start + 1)
    ) {
      const length = [5, 6, 7].find(
        (n) =>
          this.buffer.length - start >= n &&
          this.buffer[start + n - 2] === ETX &&
          checksum(this.buffer.subarray(start), n - 1) === this.buffer[start + n - 1],
      );
      if (length) return { start, length };
    }
    return undefined;
  }

  /** Where an incomplete request may start: the first STX fewer than 7 bytes from the end. */
  private pendingStart(): number {
    for (
      let start = this.buffer.indexOf(STX);
      start >= 0;
      start = this.buffer.indexOf(STX, start + 1)
    )
      if (this.buffer.length - start < 7) return start;
    return this.buffer.length;
  }
}
