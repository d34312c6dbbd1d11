import { describe, expect, it } from 'vitest';
import { ResponseParser } from './parser';

const frame = (text: string) => Buffer.from(text.replace(/ /g, ''), 'hex');
const A = frame('02 00 36 00 03 01 00 03 3F');
const B = frame('02 10 36 01 00 00 08 03 54');

describe('ResponseParser', () => {
  it('assembles a frame delivered one byte at a time', () => {
    const parser = new ResponseParser();
    const out = [...A].flatMap((b) => parser.push(Buffer.from([b])));
    expect(out.map((f) => f.raw)).toEqual([A]);
  });

  it('splits frames that arrive back to back and across chunk edges', () => {
    const parser = new ResponseParser();
    const stream = Buffer.concat([A, B]);
    const out = [
      ...parser.push(stream.subarray(0, 5)),
      ...parser.push(stream.subarray(5, 13)),
      ...parser.push(stream.subarray(13)),
    ];
    expect(out.map((f) => f.board)).toEqual([0, 1]);
  });

  it('resynchronises after garbage and a corrupted frame', () => {
    const parser = new ResponseParser();
    const corrupted = Buffer.from(A);
    corrupted[8] = 0x00;
    const out = parser.push(Buffer.concat([Buffer.from([0xff, 0x02, 0x13]), corrupted, B]));
    expect(out.map((f) => f.raw)).toEqual([B]);
    expect(parser.discarded).toBeGreaterThan(0);
  });

  it('does not mistake an STX inside data for a frame start', () => {
    const parser = new ResponseParser();
    // D1 = 0x02: a real frame whose data holds the STX byte.
    const tricky = frame('02 00 35 02 00 00 00 03 3C');
    expect(parser.push(Buffer.concat([tricky, A])).map((f) => f.raw)).toEqual([tricky, A]);
  });
});
