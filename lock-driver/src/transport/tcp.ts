import net from 'node:net';
import { LockDriverError } from '../errors';
import { ReconnectingTransport, type ReconnectOptions } from './reconnecting';
import type { Connection, ConnectionEvents } from './transport';

export interface TcpOptions extends ReconnectOptions {
  host: string;
  port: number;
  connectTimeoutMs?: number;
  /** Idle time before TCP keepalive probes start. */
  keepAliveMs?: number;
}

function connectTcp(options: TcpOptions, events: ConnectionEvents): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: options.host, port: options.port });
    socket.setNoDelay(true);
    socket.setTimeout(options.connectTimeoutMs ?? 3000, () =>
      socket.destroy(new Error('connect timed out')),
    );
    let closing = false;
    socket.once('connect', () => {
      socket.setTimeout(0);
      // A gateway that dies silently (power cut, cable pulled at its end) sends no FIN:
      // keepalive probes are what notice it, and the loss then starts a reconnection.
      socket.setKeepAlive(true, options.keepAliveMs ?? 5000);
      socket.on('data', (chunk) => events.data(chunk));
      // 'close' follows every error; losing the socket is handled there.
      socket.on('error', () => {});
      socket.on('close', () => {
        if (!closing) events.lost();
      });
      resolve({
        write: (bytes) =>
          new Promise((done, fail) => socket.write(bytes, (e) => (e ? fail(e) : done()))),
        close: () =>
          new Promise((done) => {
            closing = true;
            socket.end(() => done());
            socket.destroy();
          }),
      });
    });
    socket.once('error', (error) => {
      reject(
        new LockDriverError(
          'DISCONNECTED',
          `cannot reach the bus gateway ${options.host}:${options.port}: ${error.message}`,
          { cause: error },
        ),
      );
    });
  });
}

/** The same frames over TCP, where a gateway bridges RS-485 to Ethernet. */
export function tcpTransport(options: TcpOptions): ReconnectingTransport {
  return new ReconnectingTransport(
    `tcp://${options.host}:${options.port}`,
    (events) => connectTcp(options, events),
    options,
  );
}
