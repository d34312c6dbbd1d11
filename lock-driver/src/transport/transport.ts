/** A byte pipe to the RS-485 bus: a serial port or a TCP bus gateway. */
export interface Transport {
  /** Where it leads, for messages: `/dev/ttyUSB0 @ 19200` or `tcp://10.0.0.5:4001`. */
  readonly description: string;
  readonly connected: boolean;
  open(): Promise<void>;
  /** Resolves once the bytes have left (drained). */
  write(bytes: Buffer): Promise<void>;
  close(): Promise<void>;
  onData(listener: (chunk: Buffer) => void): void;
  onConnection(listener: (connected: boolean) => void): void;
}

/** What a concrete transport provides: one connection; reconnection is done above it. */
export interface Connection {
  write(bytes: Buffer): Promise<void>;
  close(): Promise<void>;
}

export interface ConnectionEvents {
  data(chunk: Buffer): void;
  /** The connection ended without `close()` being asked: an unplugged adapter, a dropped socket. */
  lost(error?: Error): void;
}
