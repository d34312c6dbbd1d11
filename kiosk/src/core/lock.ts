import {
  LockBoard,
  SimulatedCabinet,
  defaultCabinet,
  loadCabinetFile,
  serialTransport,
  serveTcp,
  tcpTransport,
  type Cabinet,
  type TcpSimulator,
} from '@locker/lock-driver';
import type { KioskConfig } from './config';

export interface CabinetHardware {
  board: LockBoard;
  /** The cabinet's description (boards, wiring, polarity, layout for the screen's map). */
  cabinet: Cabinet;
  /** Present in simulator mode: demos and tests script the doors through it. */
  simulator?: { cabinet: SimulatedCabinet; gateway: TcpSimulator };
  close(): Promise<void>;
}

/** The cabinet file the configuration names, else boards 0 to N-1 wired by default. */
export function cabinetOf(config: KioskConfig): Cabinet {
  if (config.cabinetFile !== undefined) return loadCabinetFile(config.cabinetFile);
  // The configuration's check guarantees one of the two.
  return defaultCabinet(config.lock.boards ?? 1);
}

/**
 * The door controller the configuration names. The simulator runs behind a loopback TCP
 * gateway, so even a demo exercises the driver's real transport and protocol code.
 */
export async function connectCabinet(config: KioskConfig): Promise<CabinetHardware> {
  const cabinet = cabinetOf(config);
  const lock = config.lock;
  switch (lock.kind) {
    case 'serial': {
      const board = await LockBoard.connect({
        cabinet,
        transport: serialTransport({ path: lock.path, baudRate: lock.baudRate }),
      });
      return { board, cabinet, close: () => board.close() };
    }
    case 'tcp': {
      const board = await LockBoard.connect({
        cabinet,
        transport: tcpTransport({ host: lock.host, port: lock.port }),
      });
      return { board, cabinet, close: () => board.close() };
    }
    case 'simulator': {
      const simulated = new SimulatedCabinet({
        boards: Math.max(...cabinet.boards) + 1,
        hookBitMeansClosed: cabinet.hookBitMeansClosed,
        autoCloseMs: lock.autoCloseMs,
        autoCloseTogglesItem: lock.demo,
      });
      const gateway = await serveTcp(simulated, 0);
      const board = await LockBoard.connect({
        cabinet,
        transport: tcpTransport({ host: '127.0.0.1', port: gateway.port }),
      });
      return {
        board,
        cabinet,
        simulator: { cabinet: simulated, gateway },
        close: async () => {
          await board.close();
          await gateway.close();
          simulated.stop();
        },
      };
    }
    default: {
      const unknown: never = lock;
      throw new Error(`unknown lock kind ${JSON.stringify(unknown)}`);
    }
  }
}
