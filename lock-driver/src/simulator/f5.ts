import { F5, F5_MARK, f5Checksum } from '../protocol/vendor';

/**
 * Any frame of the vendor's F5 framing: the simulator's side only. The driver has no such
 * encoder (it builds the version query and nothing else), and it is not exported from
 * the package.
 */
export function encodeF5(cmd: number, addr: number, data: number[] = []): Buffer {
  const frame = Buffer.from([F5, cmd, addr, data.length, F5_MARK, 0x00, ...data]);
  frame[5] = f5Checksum(frame);
  return frame;
}
