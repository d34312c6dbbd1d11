import { ETX, RESPONSE_LENGTH, STX, checksum, decodeResponse, type ResponseFrame } from './frame';

/** Bytes the parser threw away, and why: for the technician's monitor. */
export interface Discarded {
  bytes: Buffer;
  why: 'noise' | 'bad checksum';
}

/**
 * Turns a byte stream into response frames. USB adapters deliver bytes in bursts, a
 * broadcast yields frames back to back, and line noise happens: bytes are buffered,
 * frames taken whenever nine bytes starting at STX check out. Nine bytes framed right
 * (STX, ETX) with a wrong SUM are a corrupt frame and dropped whole; anything else is
 * dropped a byte at a time until the next STX (resynchronising).
 */
export class ResponseParser {
  private buffer = Buffer.alloc(0);
  /** Bytes thrown away while resynchronising, for diagnostics. */
  discarded = 0;

  constructor(private readonly onDiscard: (d: Discarded) => void = () => {}) {}

  push(chunk: Uint8Array): ResponseFrame[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : Buffer.from(chunk);
    const frames: ResponseFrame[] = [];
    const noise: number[] = [];
    const flushNoise = () => {
      if (noise.length) this.drop(Buffer.from(noise.splice(0)), 'noise');
    };
    for (;;) {
      const start = this.buffer.indexOf(STX);
      if (start < 0) {
        noise.push(...this.buffer);
        this.buffer = Buffer.alloc(0);
        break;
      }
      if (start > 0) {
        noise.push(...this.buffer.subarray(0, start));
        this.buffer = this.buffer.subarray(start);
      }
      if (this.buffer.length < RESPONSE_LENGTH) break;
      const candidate = this.buffer.subarray(0, RESPONSE_LENGTH);
      const frame = decodeResponse(candidate);
      if (frame) {
        flushNoise();
        frames.push(frame);
        this.buffer = this.buffer.subarray(RESPONSE_LENGTH);
      } else if (candidate[7] === ETX && checksum(candidate, 8) !== candidate[8]) {
        flushNoise();
        this.drop(Buffer.from(candidate), 'bad checksum');
        this.buffer = this.buffer.subarray(RESPONSE_LENGTH);
      } else {
        noise.push(this.buffer[0]!);
        this.buffer = this.buffer.subarray(1);
      }
    }
    flushNoise();
    return frames;
  }

  private drop(bytes: Buffer, why: Discarded['why']): void {
    this.discarded += bytes.length;
    this.onDiscard({ bytes, why });
  }

  reset(): void {
    this.buffer = Buffer.alloc(0);
  }
}
