import {
  LockBoard,
  SimulatedCabinet,
  serialTransport,
  serveTcp,
  tcpTransport,
  type TcpSimulator,
} from '@locker/lock-driver';
import type { KioskConfig } from './config';

export interface CabinetHardware {
  board: LockBoard;
  /** Present in simulator mode: demos and tests script the doors through it. */
  simulator?: { cabinet: SimulatedCabinet; gateway: TcpSimulator };
  close(): Promise<void>;
}

/**
 * The door controller the configuration names. The simulator runs behind a loopback TCP
 * gateway, so even a demo exercises the driver's real transport and protocol code.
 */
export async function connectCabinet(config: KioskConfig): Promise<CabinetHardware> {
  const common = {
    hookBitMeansClosed: config.hookBitMeansClosed,
    overrides: config.positionOverrides,
  };
  const lock = config.lock;
  switch (lock.kind) {
    case 'serial': {
      const board = await LockBoard.connect({
        ...common,
        boards: 10,
        transport: serialTransport({ path: lock.path, baudRate: lock.baudRate }),
      });
      return { board, close: () => board.close() };
    }
    case 'tcp': {
      const board = await LockBoard.connect({
        ...common,
        boards: 10,
        transport: tcpTransport({ host: lock.host, port: lock.port }),
      });
      return { board, close: () => board.close() };
    }
    case 'simulator': {
      const cabinet = new SimulatedCabinet({
        boards: lock.boards,
        hookBitMeansClosed: config.hookBitMeansClosed,
        autoCloseMs: lock.autoCloseMs,
        autoCloseTogglesItem: lock.demo,
      });
      const gateway = await serveTcp(cabinet, 0);
      const board = await LockBoard.connect({
        ...common,
        boards: lock.boards,
        transport: tcpTransport({ host: '127.0.0.1', port: gateway.port }),
      });
      return {
        board,
        simulator: { cabinet, gateway },
        close: async () => {
          await board.close();
          await gateway.close();
          cabinet.stop();
        },
      };
    }
    default: {
      const unknown: never = lock;
      throw new Error(`unknown lock kind ${JSON.stringify(unknown)}`);
    }
  }
}
