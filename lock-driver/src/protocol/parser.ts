import { RESPONSE_LENGTH, STX, decodeResponse, type ResponseFrame } from './frame';

/**
 * Turns a byte stream into response frames. USB adapters deliver bytes in bursts, a
 * broadcast yields frames back to back, and line noise happens: bytes are buffered,
 * frames taken whenever nine bytes starting at STX check out, and on a bad frame the
 * parser drops one byte and looks for the next STX (resynchronising).
 */
export class ResponseParser {
  private buffer = Buffer.alloc(0);
  /** Bytes thrown away while resynchronising, for diagnostics. */
  discarded = 0;

  push(chunk: Uint8Array): ResponseFrame[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : Buffer.from(chunk);
    const frames: ResponseFrame[] = [];
    for (;;) {
      const start = this.buffer.indexOf(STX);
      if (start < 0) {
        this.discarded += this.buffer.length;
        this.buffer = Buffer.alloc(0);
        return frames;
      }
      if (start > 0) {
        this.discarded += start;
        this.buffer = this.buffer.subarray(start);
      }
      if (this.buffer.length < RESPONSE_LENGTH) return frames;
      const frame = decodeResponse(this.buffer.subarray(0, RESPONSE_LENGTH));
      if (frame) {
        frames.push(frame);
        this.buffer = this.buffer.subarray(RESPONSE_LENGTH);
      } else {
        this.discarded += 1;
        this.buffer = this.buffer.subarray(1);
      }
    }
  }

  reset(): void {
    this.buffer = Buffer.alloc(0);
  }
}
