import { LockDriverError } from '../errors';
import type { Connection, ConnectionEvents, Transport } from './transport';

export interface ReconnectOptions {
  /** First wait before reconnecting; doubles up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * A transport that reconnects with exponential backoff when its connection is lost (a
 * USB adapter unplugged, a gateway rebooted). Writes while disconnected fail at once with
 * DISCONNECTED rather than queueing: a door command must never fire late.
 */
export class ReconnectingTransport implements Transport {
  private connection: Connection | undefined;
  private closing = false;
  private timer: NodeJS.Timeout | undefined;
  private backoff: number;
  private readonly dataListeners: ((chunk: Buffer) => void)[] = [];
  private readonly connectionListeners: ((connected: boolean) => void)[] = [];

  constructor(
    readonly description: string,
    private readonly connect: (events: ConnectionEvents) => Promise<Connection>,
    private readonly options: ReconnectOptions = {},
  ) {
    this.backoff = options.initialBackoffMs ?? 200;
  }

  get connected(): boolean {
    return this.connection !== undefined;
  }

  async open(): Promise<void> {
    this.closing = false;
    await this.attempt();
  }

  private async attempt(): Promise<void> {
    const connection = await this.connect({
      data: (chunk) => this.dataListeners.forEach((l) => l(chunk)),
      lost: () => this.lost(),
    });
    if (this.closing) {
      await connection.close();
      return;
    }
    this.connection = connection;
    this.backoff = this.options.initialBackoffMs ?? 200;
    this.connectionListeners.forEach((l) => l(true));
  }

  private lost(): void {
    if (!this.connection) return;
    this.connection = undefined;
    this.connectionListeners.forEach((l) => l(false));
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closing) return;
    this.timer = setTimeout(() => {
      this.attempt().catch(() => {
        this.backoff = Math.min(this.backoff * 2, this.options.maxBackoffMs ?? 5000);
        this.scheduleReconnect();
      });
    }, this.backoff);
  }

  async write(bytes: Buffer): Promise<void> {
    if (!this.connection)
      throw new LockDriverError('DISCONNECTED', `${this.description} is not connected`);
    await this.connection.write(bytes);
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.timer);
    const connection = this.connection;
    this.connection = undefined;
    await connection?.close();
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.dataListeners.push(listener);
  }

  onConnection(listener: (connected: boolean) => void): void {
    this.connectionListeners.push(listener);
  }
}
