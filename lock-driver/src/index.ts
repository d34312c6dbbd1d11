// The public surface of lock-driver: what the kiosk and the technician CLI use.
export { LockBoard, type CycleResult, type LockBoardOptions } from './lockBoard';
export type {
  BoardCheck,
  BoardReading,
  CabinetReading,
  DoorChange,
  WatchDoorsOptions,
  CloseOutcome,
  DoorReading,
  OpenOutcome,
  OpenResult,
  WatchClosedOptions,
  WatchClosedResult,
} from './doors/types';
export {
  CabinetSchema,
  defaultCabinet,
  defaultLayout,
  doorMap,
  type Cabinet,
  type BoardSettingsRecord,
  type CabinetFile,
  type LockAddress,
} from './cabinet/schema';
export { loadCabinetFile, writeCabinetFile } from './cabinet/file';
export { MAX_UNLOCK_DELAY_S, MAX_UNLOCK_TIME_MS, type FirmwareVersion } from './boardSettings';
export { BUS_TIMINGS, DOOR_TIMINGS, type BusTimings, type DoorTimings } from './timings';
export { LockDriverError, type LockDriverErrorCode } from './errors';
export type { FrameLogger } from './bus';
export type { Transport } from './transport/transport';
export { serialTransport, type SerialOptions } from './transport/serial';
export { tcpTransport, type TcpOptions } from './transport/tcp';
export { BAUD_RATES, type BaudRate } from './protocol/frame';
export { SimulatedCabinet, type CabinetOptions } from './simulator/cabinet';
export {
  servePty,
  serveTcp,
  type PtySimulator,
  type TcpSimulator,
  type WireOptions,
} from './simulator/serve';
export { probeBaudRates } from './probe';
