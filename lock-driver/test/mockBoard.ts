import { randomBytes } from 'node:crypto';
import { SerialPortMock } from 'serialport';
import { SimulatedCabinet, type CabinetOptions } from '../src/simulator/cabinet';
import { RequestParser } from '../src/simulator/requestParser';
import { serialTransport } from '../src/transport/serial';

interface MockPort {
  write(buffer: Buffer): Promise<void>;
  emitData(data: Buffer): void;
}

/**
 * A serial port on serialport's mock binding with a simulated cabinet behind it. Replies
 * are fed back in pieces of 1 to 4 bytes, as USB adapters deliver them; `written` keeps
 * every request frame the driver sent, in order.
 */
export function mockBoard(
  options: CabinetOptions & {
    silent?: boolean;
    /**
     * At a rate other than the boards', what the driver hears: nothing (the board could
     * not read the garbled request), or the board's replies garbled by the wrong rate —
     * noise with stray STX and ETX bytes and frame-shaped runs whose checksum does not hold.
     */
    wrongBaud?: 'silent' | 'noise';
  },
) {
  const cabinet = new SimulatedCabinet(options);
  const path = `/dev/mock-${randomBytes(4).toString('hex')}`;
  SerialPortMock.binding.createPort(path, { echo: false, record: true });
  const written: Buffer[] = [];
  const heard = { noiseBytes: 0 };
  return { cabinet, written, path, heard, transport: transportAt(19200), transportAt };

  /** Replies in pieces of 1 to 4 bytes, as USB adapters deliver them; or a byte at a time, a gap apart. */
  function feed(port: { isOpen: boolean }, binding: MockPort, bytes: Buffer): void {
    const { delayMs, byteGapMs } = cabinet.delivery();
    let at = 0;
    for (let i = 0; i < bytes.length;) {
      const size = byteGapMs > 0 ? 1 : 1 + Math.floor(Math.random() * 4);
      const piece = bytes.subarray(i, i + size);
      i += size;
      const when = delayMs + at;
      at += byteGapMs;
      // The test may have closed the port meanwhile: a board talks to no one then.
      const send = () => port.isOpen && binding.emitData(piece);
      if (when > 0) setTimeout(send, when);
      else setImmediate(send);
    }
  }

  /** A transport at `baudRate`; a board set to another rate never answers it readably. */
  function transportAt(baudRate: number) {
    return serialTransport({
      path,
      baudRate,
      mock: true,
      onOpened: (port) => {
        const binding = (port as SerialPortMock).port as unknown as MockPort;
        const parser = new RequestParser();
        const write = binding.write.bind(binding);
        binding.write = async (buffer: Buffer) => {
          await write(buffer);
          for (const request of parser.push(buffer)) {
            written.push(request.raw);
            if (options.silent) continue;
            const reply = Buffer.concat(cabinet.handle(request, baudRate));
            if (reply.length > 0) feed(port, binding, reply);
            else if (
              options.wrongBaud === 'noise' &&
              request.cmd === 0x32 &&
              cabinet.boardBaud.some((b) => b !== baudRate)
            ) {
              // What the boards at their own rate answered, heard at this one.
              const noise = garbled(Buffer.concat(cabinet.handle(request)));
              heard.noiseBytes += noise.length;
              feed(port, binding, noise);
            }
          }
        };
      },
    });
  }
}

/**
 * A reply as heard at the wrong rate: every byte mangled, stray STX and ETX bytes, and a
 * run shaped like a status frame (STX, the board's address, a status command, ETX) whose
 * checksum is off by one, the kind of near-frame a parser must refuse.
 */
function garbled(reply: Buffer): Buffer {
  const mangled = Buffer.from(reply.map((b) => (b * 7 + 0x5b) & 0xff));
  const nearFrame = Buffer.from([0x02, reply[1] ?? 0, 0x36, 0x0f, 0x00, 0x01, 0x00, 0x03, 0]);
  nearFrame[8] = (nearFrame.subarray(0, 8).reduce((sum, b) => sum + b, 0) + 1) & 0xff;
  return Buffer.concat([Buffer.from([0x02, 0x03, 0xff, 0x02]), mangled, nearFrame, mangled]);
}
