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
export function mockBoard(options: CabinetOptions & { silent?: boolean; boardBaud?: number }) {
  const cabinet = new SimulatedCabinet(options);
  const path = `/dev/mock-${randomBytes(4).toString('hex')}`;
  SerialPortMock.binding.createPort(path, { echo: false, record: true });
  const written: Buffer[] = [];
  return { cabinet, written, path, transport: transportAt(19200), transportAt };

  /** A transport at `baudRate`; a board set to another rate hears only garbage and stays silent. */
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
            if (
              options.silent ||
              (options.boardBaud !== undefined && options.boardBaud !== baudRate)
            )
              continue;
            const reply = Buffer.concat(cabinet.handle(request));
            for (let at = 0; at < reply.length;) {
              const size = 1 + Math.floor(Math.random() * 4);
              const piece = reply.subarray(at, at + size);
              at += size;
              // The test may have closed the port meanwhile: a board talks to no one then.
              setImmediate(() => port.isOpen && binding.emitData(piece));
            }
          }
        };
      },
    });
  }
}
