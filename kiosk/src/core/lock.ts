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

/**
 * A kernel name (`/dev/ttyUSB0`, `/dev/ttyACM1`): numbered in the order adapters appear,
 * so it can name another adapter after a replug or a reboot. `/dev/serial/by-id/…` (what
 * `lockctl ports` offers) names this one adapter for good.
 */
export function unstablePortName(path: string): boolean {
  return /^\/dev\/tty(USB|ACM)\d+$/.test(path);
}

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
export async function connectCabinet(
  config: KioskConfig,
  log?: { info(message: string): void; warn(message: string): void },
): Promise<CabinetHardware> {
  const cabinet = cabinetOf(config);
  const lock = config.lock;
  // Boots in any order: a kiosk up before its USB adapter or gateway waits for it.
  const reconnect = {
    waitForPort: true,
    log: (level: 'info' | 'warn', message: string) => log?.[level](message),
  };
  switch (lock.kind) {
    case 'serial': {
      if (unstablePortName(lock.path))
        log?.warn(
          `${lock.path} may name another adapter after a replug or a reboot: give the /dev/serial/by-id/… path \`lockctl ports\` offers`,
        );
      const board = await LockBoard.connect({
        cabinet,
        transport: serialTransport({ path: lock.path, baudRate: lock.baudRate, ...reconnect }),
      });
      return { board, cabinet, close: () => board.close() };
    }
    case 'tcp': {
      const board = await LockBoard.connect({
        cabinet,
        transport: tcpTransport({ host: lock.host, port: lock.port, ...reconnect }),
      });
      return { board, cabinet, close: () => board.close() };
    }
    case 'simulator': {
      // Boards 0 to the highest in the cabinet; numbers the cabinet skips stay silent.
      const boards = Math.max(...cabinet.boards) + 1;
      const faults = lock.faults ?? {};
      const simulated = new SimulatedCabinet({
        boards,
        deadBoards: [...Array(boards).keys()].filter((b) => !cabinet.boards.includes(b)),
        stateFile: lock.stateFile,
        hookBitMeansClosed: faults.invertedHook
          ? !cabinet.hookBitMeansClosed
          : cabinet.hookBitMeansClosed,
        unlockDelayS: faults.unlockDelayS,
        version: faults.version,
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
