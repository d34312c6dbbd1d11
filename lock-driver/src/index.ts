// The public surface of lock-driver: what the kiosk and the technician CLI use.
export {
  LockBoard,
  type CloseOutcome,
  type DoorState,
  type LockBoardOptions,
  type OpenOutcome,
} from './lockBoard';
export { LockDriverError, type LockDriverErrorCode } from './errors';
export type { FrameLogger } from './bus';
export type { PositionOverrides, LockAddress } from './mapping';
export type { Transport } from './transport/transport';
export { serialTransport, type SerialOptions } from './transport/serial';
export { tcpTransport, type TcpOptions } from './transport/tcp';
export { BAUD_RATES, type BaudRate } from './protocol/frame';
export { SimulatedCabinet, type CabinetOptions } from './simulator/cabinet';
export { servePty, serveTcp, type PtySimulator, type TcpSimulator } from './simulator/serve';
export { probeBaudRates } from './probe';
