import { ETX, RESPONSE_LENGTH, STX, checksum, decodeResponse, type ResponseFrame } from './frame';
import { F5, decodeVendorFrame, f5Length, type VendorFrame } from './vendor';

/** Any reply on the line: the STX framing, or the vendor's F5 framing (version query). */
export type ReceivedFrame = ResponseFrame | VendorFrame;

/** Bytes the parser threw away, and why: for the technician's monitor. */
export interface Discarded {
  bytes: Buffer;
  why: 'noise' | 'bad checksum';
}

/**
 * Turns a byte stream into response frames. USB adapters deliver bytes in bursts, a
 * broadcast yields frames back to back, and line noise happens: bytes are buffered,
 * frames taken whenever nine bytes starting at STX check out (or an F5 frame, whose
 * length is in its header). Nine bytes framed right (STX, ETX) with a wrong SUM are a
 * corrupt frame and dropped whole; anything else is dropped a byte at a time until the
 * next STX or F5 (resynchronising).
 */
export class ResponseParser {
  private buffer = Buffer.alloc(0);
  /** Bytes thrown away while resynchronising, for diagnostics. */
  discarded = 0;

  constructor(private readonly onDiscard: (d: Discarded) => void = () => {}) {}

  /** Bytes held that may still become a frame. */
  get pending(): number {
    return this.buffer.length;
  }

  push(chunk: Uint8Array): ReceivedFrame[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : Buffer.from(chunk);
    const frames: ReceivedFrame[] = [];
    const noise: number[] = [];
    const flushNoise = () => {
      if (noise.length) this.drop(Buffer.from(noise.splice(0)), 'noise');
    };
    const skipOne = () => {
      noise.push(this.buffer[0]!);
      this.buffer = this.buffer.subarray(1);
    };
    for (;;) {
      const start = this.buffer.findIndex((b) => b === STX || b === F5);
      if (start < 0) {
        noise.push(...this.buffer);
        this.buffer = Buffer.alloc(0);
        break;
      }
      if (start > 0) {
        noise.push(...this.buffer.subarray(0, start));
        this.buffer = this.buffer.subarray(start);
      }
      if (this.buffer[0] === F5) {
        const length = f5Length(this.buffer);
        if (length < 0) {
          skipOne();
          continue;
        }
        if (length === 0 || this.buffer.length < length) break;
        const frame = decodeVendorFrame(this.buffer.subarray(0, length));
        if (!frame) {
          skipOne();
          continue;
        }
        flushNoise();
        frames.push(frame);
        this.buffer = this.buffer.subarray(length);
        continue;
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
        skipOne();
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
