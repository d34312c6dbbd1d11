import { ETX, STX, checksum } from '../protocol/frame';

export interface RequestFrame {
  addr: number;
  cmd: number;
  data: number[];
  raw: Buffer;
}

/**
 * Requests are 5 to 7 bytes (0 to 2 data bytes), so the board side tries each length
 * and keeps the one whose ETX and SUM check out; otherwise it drops a byte and resyncs.
 */
export class RequestParser {
  private buffer = Buffer.alloc(0);

  push(chunk: Uint8Array): RequestFrame[] {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const frames: RequestFrame[] = [];
    for (;;) {
      const start = this.buffer.indexOf(STX);
      if (start < 0) {
        this.buffer = Buffer.alloc(0);
        return frames;
      }
      this.buffer = this.buffer.subarray(start);
      const length = [5, 6, 7].find(
        (n) =>
          this.buffer.length >= n &&
          this.buffer[n - 2] === ETX &&
          checksum(this.buffer, n - 1) === this.buffer[n - 1],
      );
      if (length) {
        const raw = Buffer.from(this.buffer.subarray(0, length));
        frames.push({ addr: raw[1]!, cmd: raw[2]!, data: [...raw.subarray(3, length - 2)], raw });
        this.buffer = this.buffer.subarray(length);
        continue;
      }
      if (this.buffer.length < 7) return frames;
      this.buffer = this.buffer.subarray(1);
    }
  }
}
