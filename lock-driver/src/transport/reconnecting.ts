import { LockDriverError } from '../errors';
import type { Connection, ConnectionEvents, Transport } from './transport';

export interface ReconnectOptions {
  /** First wait before reconnecting; doubles up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * Boots in any order: when the port or gateway is not there at `open()`, keep trying
   * in the background (open resolves; commands fail DISCONNECTED until it appears).
   * Unset, `open()` fails at once, as a technician's one-off command wants.
   */
  waitForPort?: boolean;
  /** Where connection news goes (waiting, connected, lost); the kiosk's log. */
  log?: (level: 'info' | 'warn', message: string) => void;
}

/**
 * A transport that connects and reconnects with exponential backoff (a USB adapter
 * plugged in late or unplugged, a gateway rebooted). Writes while disconnected fail at
 * once with DISCONNECTED rather than queueing: a door command must never fire late.
 */
export class ReconnectingTransport implements Transport {
  private connection: Connection | undefined;
  private closing = false;
  private timer: NodeJS.Timeout | undefined;
  private backoff: number;
  private failures = 0;
  private lastFailure = '';
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
    try {
      await this.attempt();
    } catch (error) {
      if (!this.options.waitForPort) throw error;
      this.failed(error);
    }
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
    if (this.failures > 0)
      this.options.log?.('info', `${this.description} connected after ${this.failures} attempt(s)`);
    this.failures = 0;
    this.lastFailure = '';
    this.backoff = this.options.initialBackoffMs ?? 200;
    this.connectionListeners.forEach((l) => l(true));
  }

  /** A failed attempt: say so when the reason is new, then try again later. */
  private failed(error: unknown): void {
    this.failures++;
    const reason = error instanceof Error ? error.message : String(error);
    if (reason !== this.lastFailure)
      this.options.log?.(
        'warn',
        `waiting for ${this.description}: ${reason} (retrying with backoff up to ${(this.options.maxBackoffMs ?? 5000) / 1000} s)`,
      );
    this.lastFailure = reason;
    this.scheduleReconnect();
    this.backoff = Math.min(this.backoff * 2, this.options.maxBackoffMs ?? 5000);
  }

  private lost(): void {
    if (!this.connection) return;
    this.connection = undefined;
    this.options.log?.('warn', `${this.description} was lost; reconnecting`);
    this.connectionListeners.forEach((l) => l(false));
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closing) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.attempt().catch((error: unknown) => this.failed(error));
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
