import { SerialPort, SerialPortMock } from 'serialport';
import { portOpenError } from '../errors';
import { ReconnectingTransport, type ReconnectOptions } from './reconnecting';
import type { Connection, ConnectionEvents } from './transport';

export interface SerialOptions extends ReconnectOptions {
  path: string;
  /** 19200 is the usual factory setting of the board. */
  baudRate?: number;
  /** Unit tests use serialport's mock binding; the default is the platform's binding. */
  mock?: boolean;
  /** Called with each port once open: tests reach the mock binding through it. */
  onOpened?: (port: SerialPort | SerialPortMock) => void;
}

function connectSerial(options: SerialOptions, events: ConnectionEvents): Promise<Connection> {
  const Port = options.mock ? SerialPortMock : SerialPort;
  const port = new Port({
    path: options.path,
    baudRate: options.baudRate ?? 19200,
    dataBits: 8,
    parity: 'none',
    stopBits: 1,
    autoOpen: false,
  });
  return new Promise((resolve, reject) => {
    port.open((error) => {
      if (error) return reject(portOpenError(options.path, error));
      options.onOpened?.(port);
      let closing = false;
      port.on('data', (chunk: Buffer) => events.data(chunk));
      // Unplugging a USB adapter closes the port with `disconnected`; any close we did not
      // ask for is a loss to recover from.
      port.on('close', () => {
        if (!closing) events.lost();
      });
      port.on('error', () => {});
      resolve({
        write: (bytes) =>
          new Promise((done, fail) => {
            port.write(bytes, (e) => (e ? fail(e) : port.drain((d) => (d ? fail(d) : done()))));
          }),
        close: () =>
          new Promise((done) => {
            closing = true;
            if (!port.isOpen) return done();
            port.close(() => done());
          }),
      });
    });
  });
}

/** RS-485 through a serial port (a USB adapter): 8 data bits, no parity, 1 stop bit. */
export function serialTransport(options: SerialOptions): ReconnectingTransport {
  const description = `${options.path} @ ${options.baudRate ?? 19200}`;
  return new ReconnectingTransport(
    description,
    (events) => connectSerial(options, events),
    options,
  );
}
