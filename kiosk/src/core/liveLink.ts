import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import {
  LINK_PROTOCOL,
  LinkServiceMessageSchema,
  type LinkCommandPayload,
  type LinkDoorState,
  type LinkKioskMessage,
  type LinkOutcome,
} from '@locker/shared';
import type { KioskDatabase } from './database';
import { checkCommand, pinnedKey } from './linkCheck';
import type { KioskLog } from './log';

/** Reconnecting: full jitter over an exponential ceiling, 1 s doubling up to 60 s. */
const BACKOFF_BASE_MS = 1000;
const BACKOFF_CAP_MS = 60_000;

/** The delay before reconnect attempt `attempt` (0-based): uniform in [0, ceiling). */
export function backoffDelay(attempt: number, random = Math.random): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(attempt, 16));
  return Math.floor(random() * ceiling);
}

export interface OutcomeReport {
  outcome: LinkOutcome;
  detail?: Record<string, unknown>;
}

export interface LiveLinkDeps {
  serverUrl: string;
  /** The device token now (it may be enrolled or rotated while the kiosk runs). */
  deviceToken: () => string;
  publicKey: string | undefined;
  db: KioskDatabase;
  log: KioskLog;
  /** This kiosk's station as the service said over HTTPS (the heartbeat); null before. */
  station(): string | null;
  /** The doors of this cabinet. */
  doors: ReadonlySet<number>;
  /** Runs a command that passed every check; answers its outcome. */
  execute(command: LinkCommandPayload): Promise<OutcomeReport>;
  /** The service says the door grid changed. */
  cabinetChanged(): void;
  /** The link came up (true) or went down (false). */
  connectedChanged(connected: boolean): void;
}

/**
 * The kiosk's end of the live link: one outbound WebSocket, authenticated by the device
 * token, kept up by reconnecting with backoff and jitter (a server restart or another
 * instance behind the address is just a reconnect). Every command is checked
 * (linkCheck.ts) before it runs, its nonce remembered on disk until it expires, and its
 * outcome kept on disk until the service acknowledges it.
 */
export class LiveLink {
  private ws: WebSocket | undefined;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private silenceTimer: NodeJS.Timeout | undefined;
  private pingSeconds = 25;
  private stopped = false;
  private up = false;
  private readonly key;
  private readonly url: string;

  constructor(private readonly d: LiveLinkDeps) {
    this.key = pinnedKey(d.publicKey);
    const url = new URL('/terminal/v1/link', d.serverUrl);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    this.url = url.toString();
    if (d.publicKey && !this.key) d.log.error('linkPublicKey is not an Ed25519 public key');
  }

  /** Greeted by the service on the current connection. */
  get connected(): boolean {
    return this.up;
  }

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.silenceTimer);
    this.ws?.terminate();
    this.ws = undefined;
    this.setUp(false);
  }

  /** Sends a message if the link is up; false when it is not (nothing is queued). */
  send(message: LinkKioskMessage): boolean {
    const ws = this.ws;
    if (!this.up || !ws || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify(message));
    return true;
  }

  sendDoors(doors: LinkDoorState[], full: boolean): boolean {
    return this.send({ type: 'doors', full, doors, at: new Date().toISOString() });
  }

  private setUp(up: boolean): void {
    if (this.up === up) return;
    this.up = up;
    this.d.connectedChanged(up);
  }

  private connect(): void {
    if (this.stopped) return;
    // Like every call to the service, the connection carries its own correlation id: the
    // service's log line of a refused or failed link names it.
    const ws = new WebSocket(this.url, LINK_PROTOCOL, {
      headers: {
        authorization: `Bearer ${this.d.deviceToken()}`,
        'x-correlation-id': randomUUID(),
      },
      handshakeTimeout: 10_000,
      perMessageDeflate: false,
      maxPayload: 64 * 1024,
    });
    this.ws = ws;
    ws.on('unexpected-response', (_req, res) => {
      this.d.log.warn({ status: res.statusCode }, 'link refused by the service');
      res.resume();
      ws.terminate();
    });
    ws.on('open', () => this.heard());
    ws.on('ping', () => this.heard());
    ws.on('message', (data, isBinary) => {
      this.heard();
      if (!isBinary) void this.receive((data as Buffer).toString('utf8'));
    });
    ws.on('error', (error) => this.d.log.debug({ error: error.message }, 'link error'));
    ws.on('close', (code) => {
      if (this.ws !== ws) return;
      this.ws = undefined;
      clearTimeout(this.silenceTimer);
      if (this.up) this.d.log.warn({ code }, 'link down');
      this.setUp(false);
      this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const delay = backoffDelay(this.attempt++);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
    this.reconnectTimer.unref();
  }

  /** Anything from the service proves the connection alive; two pings' silence does not. */
  private heard(): void {
    clearTimeout(this.silenceTimer);
    this.silenceTimer = setTimeout(
      () => {
        this.d.log.warn('link silent: reconnecting');
        this.ws?.terminate();
      },
      (2 * this.pingSeconds + 5) * 1000,
    );
    this.silenceTimer.unref();
  }

  private async receive(text: string): Promise<void> {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.send({ type: 'rejected', reason: 'unreadable', id: null });
      return;
    }
    const type = (json as { type?: unknown } | null)?.type;
    if (type === 'command') return this.command(json);
    const message = LinkServiceMessageSchema.safeParse(json);
    // A type this version does not know is ignored: a newer service may send more.
    if (!message.success) return;
    const m = message.data;
    switch (m.type) {
      case 'hello': {
        this.attempt = 0;
        this.pingSeconds = m.pingSeconds;
        this.heard();
        const skewMs = Date.now() - Date.parse(m.serverTime);
        this.d.log.info({ station: m.stationCode, skew_ms: skewMs }, 'link up');
        if (Math.abs(skewMs) > 5000)
          this.d.log.warn(
            { alert: 'kiosk_clock_skew', skew_ms: skewMs },
            "the kiosk's clock is off: commands may be judged expired",
          );
        this.setUp(true);
        this.resendOutcomes();
        return;
      }
      case 'cabinet_changed':
        this.d.cabinetChanged();
        return;
      case 'outcome_ack':
        this.d.db.prepare('delete from link_outcomes where command_id = ?').run(m.id);
        return;
      case 'command':
        return;
      default: {
        const unknown: never = m;
        throw new Error(`unknown message ${String(unknown)}`);
      }
    }
  }

  /** Checks, remembers and runs one command; its outcome goes back, kept until acknowledged. */
  private async command(message: unknown): Promise<void> {
    const now = new Date();
    const checked = checkCommand(message, {
      key: this.key,
      station: this.d.station(),
      doors: this.d.doors,
      now,
      seen: (nonce) =>
        this.d.db.prepare('select 1 from link_nonces where nonce = ?').get(nonce) !== undefined,
    });
    if (checked.verdict === 'reject') {
      this.d.log.warn(
        { alert: 'link_command_rejected', reason: checked.reason, command_id: checked.id },
        'command refused: it opens nothing',
      );
      this.send({ type: 'rejected', reason: checked.reason, id: checked.id });
      return;
    }
    const { command } = checked;
    // Remembered before anything runs: a crash mid-command cannot make a replay run it.
    this.d.db
      .prepare(
        `insert into link_nonces (nonce, command_id, expires_at) values (?, ?, ?)
         on conflict do nothing`,
      )
      .run(command.nonce, command.id, Date.parse(command.expiresAt));
    this.d.db.prepare('delete from link_nonces where expires_at < ?').run(now.getTime());
    const log = this.d.log.child({
      command_id: command.id,
      kind: command.kind,
      door: command.door,
    });
    let report: OutcomeReport;
    if (checked.verdict === 'report') {
      log.warn({ outcome: checked.outcome, reason: checked.reason }, 'command not run');
      report = { outcome: checked.outcome, detail: { reason: checked.reason } };
    } else {
      log.info('command runs');
      try {
        report = await this.d.execute(command);
      } catch (error) {
        report = { outcome: 'failed', detail: { error: String(error) } };
      }
      log.info({ outcome: report.outcome }, 'command ran');
    }
    const body = JSON.stringify({
      type: 'outcome',
      id: command.id,
      outcome: report.outcome,
      detail: report.detail ?? {},
      at: new Date().toISOString(),
    });
    this.d.db
      .prepare(
        `insert into link_outcomes (command_id, body, created_at) values (?, ?, ?)
         on conflict do nothing`,
      )
      .run(command.id, body, Date.now());
    if (this.up) this.ws?.send(body);
  }

  /** Outcomes the service has not acknowledged go again on every new connection. */
  private resendOutcomes(): void {
    const rows = this.d.db.prepare('select body from link_outcomes order by created_at').all() as {
      body: string;
    }[];
    for (const row of rows) this.ws?.send(row.body);
  }
}
