import { describe, expect, it } from 'vitest';
import { checksum, decodeResponse, hex } from './frame';
import { requests } from './requests';
import { decodeLockStates, encodeLockStates } from './status';

const bytes = (text: string) => Buffer.from(text.replace(/ /g, ''), 'hex');

// Every example frame of shared/hardware/kerong-cu16.md.
describe('CU16 frames', () => {
  it.each([
    ['status of board 0', requests.status(0), '02 00 30 03 35'],
    ['unlock board 0 lock 3', requests.unlock(0, 2), '02 02 31 03 38'],
    ['status of all boards', requests.statusAll(), '02 F0 32 03 27'],
    ['open all of board 0', requests.openAll(0), '02 00 33 03 38'],
    ['query unlock time', requests.queryUnlockTime(0), '02 00 37 03 3C'],
    ['set unlock time 1000 ms', requests.setUnlockTime(0, 1000), '02 00 37 00 64 03 A0'],
    ['set baud 19200', requests.setBaud(0, 19200), '02 00 40 01 03 46'],
  ])('encodes %s byte for byte', (_name, encoded, expected) => {
    expect(hex(encoded)).toBe(expected);
  });

  it.each([
    [
      'status: lock 1 locked, item in 1',
      '02 00 35 01 00 01 00 03 3C',
      0x00,
      0x35,
      [0x01, 0x00, 0x01, 0x00],
    ],
    ['status all, board 0', '02 00 36 00 03 01 00 03 3F', 0x00, 0x36, [0x00, 0x03, 0x01, 0x00]],
    ['status all, board 1', '02 10 36 01 00 00 08 03 54', 0x10, 0x36, [0x01, 0x00, 0x00, 0x08]],
    ['open all answer', '02 00 35 0F 00 01 00 03 4A', 0x00, 0x35, [0x0f, 0x00, 0x01, 0x00]],
    ['unlock time 550 ms', '02 00 38 0F 00 00 37 03 83', 0x00, 0x38, [0x0f, 0x00, 0x00, 0x37]],
    [
      'unlock time set to 1000 ms',
      '02 00 38 00 00 00 64 03 A1',
      0x00,
      0x38,
      [0x00, 0x00, 0x00, 0x64],
    ],
    ['baud set', '02 00 40 01 00 00 01 03 47', 0x00, 0x40, [0x01, 0x00, 0x00, 0x01]],
  ])('decodes %s', (_name, text, addr, cmd, data) => {
    const frame = decodeResponse(bytes(text));
    expect(frame).toMatchObject({ addr, cmd, data });
  });

  it('refuses a frame whose checksum, STX or ETX is wrong', () => {
    expect(decodeResponse(bytes('02 00 35 01 00 01 00 03 3D'))).toBeUndefined();
    expect(decodeResponse(bytes('03 00 35 01 00 01 00 03 3C'))).toBeUndefined();
    expect(decodeResponse(bytes('02 00 35 01 00 01 00 04 3D'))).toBeUndefined();
    expect(checksum(bytes('02 F0 32 03'))).toBe(0x27);
  });

  it('reads hook and infrared bits with either polarity', () => {
    const frame = decodeResponse(bytes('02 10 36 01 00 00 08 03 54'))!;
    const vendor = decodeLockStates(frame, { hookBitMeansClosed: true });
    expect(vendor[0]).toEqual({ lock: 1, closed: true, itemPresent: false });
    expect(vendor[1]).toEqual({ lock: 2, closed: false, itemPresent: false });
    expect(vendor[11]).toEqual({ lock: 12, closed: false, itemPresent: true });
    const inverted = decodeLockStates(frame, { hookBitMeansClosed: false });
    expect(inverted[0]!.closed).toBe(false);
    expect(inverted[1]!.closed).toBe(true);
    expect(encodeLockStates(vendor, { hookBitMeansClosed: true })).toEqual(frame.data);
  });
});
