import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import {
  LINK_PROTOCOL,
  LinkKioskMessageSchema,
  type LinkDoorsMessage,
  type LinkOutcomeMessage,
  type LinkServiceMessage,
} from '@locker/shared';
import type { Sql } from '../db/connect';
import { bearerOf } from '../http/bearer';
import { ProblemError } from '../http/problem';
import type { Logger } from '../logger';
import { terminalByToken, type AuthenticatedTerminal } from '../terminal/auth';
import type { TerminalAuthCache } from '../terminal/authCache';
import { transaction } from '../db/transaction';
import { auditOutcome } from './commands';
import { recordDoorStates } from './doorStates';

export const LINK_PATH = '/terminal/v1/link';
/** A kiosk's messages are small (a door-state list of a 160-door cabinet is ~12 kB). */
const MAX_MESSAGE_BYTES = 64 * 1024;
/**
 * The links are pinged in this many slices spread over the ping interval, each link in
 * one (issue 28): pinging all 28,000 of an instance's links in one turn of its loop held
 * every request for that turn, every 25 s, and their pongs came back in one wave.
 */
export const PING_SLICES = 50;

/** One kiosk's open link; kept small, since an instance holds tens of thousands. */
interface Connection {
  ws: WebSocket;
  terminalId: string;
  stationId: string;
  stationCode: string;
  /** Answered the last ping (or said anything since). */
  alive: boolean;
  connectedAt: Date;
  /** Its slice of the pings (`PING_SLICES`). */
  slice: number;
}

/** Doors that changed at a station, as the operations stream shows them. */
export interface DoorStatesEvent {
  station_id: string;
  station_code: string;
  at: string;
  doors: {
    position: number;
    state: 'open' | 'closed' | 'unknown';
    item_present: boolean | null;
    in_session: boolean;
    open_since: string | null;
  }[];
}

interface DoorWatcher {
  /** Technicians: their stations; null: every station. */
  stations: string[] | null;
  send(event: DoorStatesEvent): void;
}

export interface LinkHubDeps {
  sql: Sql;
  /** Soft state (door states, link rows): asynchronous commit. */
  softSql: Sql;
  authCache: TerminalAuthCache;
  logger: Logger;
  pingSeconds: number;
}

/** Writes a problem answer on a socket that will not be upgraded, and closes it. */
function refuse(socket: Duplex, error: ProblemError): void {
  if (!socket.writable) return void socket.destroy();
  const correlationId = randomUUID();
  const body = JSON.stringify(error.body(correlationId));
  socket.end(
    `HTTP/1.1 ${error.status} ${http.STATUS_CODES[error.status]}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Correlation-ID: ${correlationId}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/**
 * This instance's kiosk links: the upgrade (device-token authentication, the terminal
 * interface's own path and cache), one connection per terminal, pings that find dead
 * connections, commands delivered to the kiosks connected here, their outcomes and the
 * doors' states recorded, and the "cabinet changed" hint.
 */
export class LinkHub {
  readonly instanceId = randomUUID();
  private readonly wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: MAX_MESSAGE_BYTES,
    handleProtocols: (offered) => (offered.has(LINK_PROTOCOL) ? LINK_PROTOCOL : false),
  });
  private readonly byTerminal = new Map<string, Connection>();
  private readonly byStation = new Map<string, Set<Connection>>();
  private pinger: NodeJS.Timeout | undefined;
  private instanceBeat: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private closing = false;
  private readonly doorWatchers = new Set<DoorWatcher>();
  private readonly pingSlices = Array.from({ length: PING_SLICES }, () => new Set<Connection>());
  private nextSlice = 0;
  private pingTick = 0;

  constructor(private readonly d: LinkHubDeps) {}

  /** Kiosk links held by this instance now. */
  get size(): number {
    return this.byTerminal.size;
  }

  /** Whether a kiosk of this station is connected to this instance. */
  holds(stationId: string): boolean {
    return (this.byStation.get(stationId)?.size ?? 0) > 0;
  }

  async start(): Promise<void> {
    const { sql } = this.d;
    await sql`insert into link_instances (id) values (${this.instanceId})`;
    // Links whose instance stopped beating are counted as disconnected (readers judge
    // by link_instances.seen_at); a beat every 10 s keeps this instance's alive.
    this.instanceBeat = setInterval(() => {
      void this.d
        .softSql`update link_instances set seen_at = now() where id = ${this.instanceId}`.catch(
        (error: unknown) => this.d.logger.warn({ err: error }, 'link instance beat failed'),
      );
    }, 10_000);
    this.instanceBeat.unref();
    const subscriptions = await Promise.all([
      sql.listen(
        'locker_link_command',
        (payload) => {
          const [stationId] = payload.split(' ');
          if (stationId && this.holds(stationId)) void this.deliver(stationId);
        },
        // Reconnected: a command may have been announced meanwhile.
        () => [...this.byStation.keys()].forEach((s) => void this.deliver(s)),
      ),
      sql.listen('locker_cabinet', (payload) => {
        const [stationId, version] = payload.split(' ');
        if (stationId && version) this.hint(stationId, version);
      }),
      // Doors that changed, at any station, reported to any instance: to this one's watchers.
      sql.listen('locker_door_state', (payload) => this.doorsChanged(payload)),
      // Revoked, disabled or moved: the link ends; a reconnect is judged afresh.
      sql.listen('locker_terminal', (terminalId) => {
        this.byTerminal.get(terminalId)?.ws.close(4001, 'terminal changed');
      }),
    ]);
    this.unlisten = async () => {
      await Promise.all(subscriptions.map((s) => s.unlisten()));
    };
    this.pinger = setInterval(() => this.ping(), (this.d.pingSeconds * 1000) / PING_SLICES);
    this.pinger.unref();
  }

  /** Every change of a door's sensor state (of `stations`, null: all) until unsubscribed. */
  watchDoors(stations: string[] | null, send: DoorWatcher['send']): () => void {
    const watcher = { stations, send };
    this.doorWatchers.add(watcher);
    return () => this.doorWatchers.delete(watcher);
  }

  private doorsChanged(payload: string): void {
    if (this.doorWatchers.size === 0) return;
    const p = JSON.parse(payload) as {
      s: string;
      c: string;
      t: string;
      d: [number, boolean, boolean | null, boolean | null, boolean, string | null][];
    };
    const event: DoorStatesEvent = {
      station_id: p.s,
      station_code: p.c,
      at: new Date(p.t).toISOString(),
      doors: p.d.map(([position, known, closed, item, inSession, openSince]) => ({
        position,
        state: !known ? 'unknown' : closed ? 'closed' : 'open',
        item_present: item,
        in_session: inSession,
        open_since: openSince === null ? null : new Date(openSince).toISOString(),
      })),
    };
    for (const w of this.doorWatchers)
      if (w.stations === null || w.stations.includes(event.station_id)) w.send(event);
  }

  /** Node's `upgrade` event: the link's path only; everything else is refused. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    void this.authenticate(req).then(
      (terminal) => {
        if (this.closing) return void socket.destroy();
        if (terminal instanceof ProblemError) return refuse(socket, terminal);
        this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, terminal));
      },
      (error: unknown) => {
        this.d.logger.error({ err: error }, 'link upgrade failed');
        refuse(socket, new ProblemError('internal_error'));
      },
    );
  }

  private async authenticate(req: IncomingMessage): Promise<AuthenticatedTerminal | ProblemError> {
    const url = new URL(req.url ?? '/', 'http://link');
    if (url.pathname !== LINK_PATH || req.method !== 'GET') return new ProblemError('not_found');
    // Authentication first, as every terminal route: what else is wrong tells nothing
    // to a caller without a token.
    const terminal = await terminalByToken(
      this.d.sql,
      this.d.authCache,
      bearerOf(req),
      // Like the heartbeat, an offline terminal may connect: it is how it comes back.
      { allowOffline: true },
    );
    if (!terminal?.station) return new ProblemError('unauthorized');
    const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    if (!offered.includes(LINK_PROTOCOL) || req.headers.upgrade?.toLowerCase() !== 'websocket')
      return new ProblemError(
        'bad_request',
        `Upgrade to a WebSocket with the subprotocol ${LINK_PROTOCOL}.`,
      );
    return terminal;
  }

  private accept(ws: WebSocket, terminal: AuthenticatedTerminal): void {
    const station = terminal.station!;
    const conn: Connection = {
      ws,
      terminalId: terminal.id,
      stationId: station.id,
      stationCode: station.code,
      alive: true,
      connectedAt: new Date(),
      slice: this.nextSlice++ % PING_SLICES,
    };
    // One link per terminal: a new one replaces the old (a kiosk that reconnected before
    // the service noticed the old one die).
    this.byTerminal.get(terminal.id)?.ws.close(4000, 'replaced');
    this.byTerminal.set(terminal.id, conn);
    this.pingSlices[conn.slice]!.add(conn);
    const peers = this.byStation.get(station.id) ?? new Set();
    peers.add(conn);
    this.byStation.set(station.id, peers);

    ws.on('pong', () => (conn.alive = true));
    ws.on('message', (data, isBinary) => {
      conn.alive = true;
      if (!isBinary) void this.receive(conn, data);
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => this.forget(conn));

    void this.send(conn, {
      type: 'hello',
      protocol: LINK_PROTOCOL,
      stationCode: station.code,
      serverTime: new Date().toISOString(),
      pingSeconds: this.d.pingSeconds,
    });
    void this.d.softSql`
      insert into terminal_links (terminal_id, instance_id, protocol, connected_at)
      values (${terminal.id}, ${this.instanceId}, ${LINK_PROTOCOL}, ${conn.connectedAt})
      on conflict (terminal_id) do update
        set instance_id = excluded.instance_id, protocol = excluded.protocol,
            connected_at = excluded.connected_at, disconnected_at = null`
      .then(() => this.deliver(station.id))
      .catch((error: unknown) => this.d.logger.error({ err: error }, 'link not recorded'));
  }

  private forget(conn: Connection): void {
    this.pingSlices[conn.slice]!.delete(conn);
    if (this.byTerminal.get(conn.terminalId) === conn) {
      this.byTerminal.delete(conn.terminalId);
      if (!this.closing)
        void this.d.softSql`
          update terminal_links set disconnected_at = now()
           where terminal_id = ${conn.terminalId} and instance_id = ${this.instanceId}
             and connected_at = ${conn.connectedAt}`.catch(() => undefined);
    }
    const peers = this.byStation.get(conn.stationId);
    peers?.delete(conn);
    if (peers?.size === 0) this.byStation.delete(conn.stationId);
  }

  private send(conn: Connection, message: LinkServiceMessage): Promise<boolean> {
    if (conn.ws.readyState !== conn.ws.OPEN) return Promise.resolve(false);
    return new Promise((resolve) =>
      conn.ws.send(JSON.stringify(message), (error) => resolve(!error)),
    );
  }

  /**
   * One slice of the links, in turn: each link is pinged once a ping interval, and one
   * silent since its last ping is dead: dropped (the kiosk reconnects).
   */
  private ping(): void {
    for (const conn of this.pingSlices[this.pingTick++ % PING_SLICES]!) {
      if (!conn.alive) {
        conn.ws.terminate();
        continue;
      }
      conn.alive = false;
      conn.ws.ping();
    }
  }

  /** The grid of a station changed: its kiosks here poll `/cabinet` now. */
  private hint(stationId: string, version: string): void {
    for (const conn of this.byStation.get(stationId) ?? [])
      void this.send(conn, { type: 'cabinet_changed', version });
  }

  /**
   * Sends the station's pending commands still valid to one of its kiosks connected here,
   * each taken (`pending` → `sent`) by one statement, so one kiosk on one instance gets
   * it, once. A command whose send failed goes back to pending for the next connection.
   */
  async deliver(stationId: string): Promise<void> {
    const peers = this.byStation.get(stationId);
    const conn = peers && [...peers].find((c) => c.ws.readyState === c.ws.OPEN);
    if (!conn) return;
    const taken = await this.d.sql<{ id: string; payload: string; signature: Buffer }[]>`
      update link_commands c
         set status = 'sent', sent_at = now(), terminal_id = ${conn.terminalId}
        from (select id from link_commands
               where station_id = ${stationId} and status = 'pending' and expires_at > now()
               order by issued_at
               for update skip locked) due
       where c.id = due.id
      returning c.id, c.payload, c.signature`;
    for (const command of taken) {
      const sent = await this.send(conn, {
        type: 'command',
        payload: command.payload,
        signature: command.signature.toString('base64'),
      });
      if (sent) {
        this.d.logger.info(
          { command_id: command.id, terminal_id: conn.terminalId },
          'link command sent',
        );
      } else {
        await this.d.sql`
          update link_commands set status = 'pending', sent_at = null, terminal_id = null
           where id = ${command.id} and status = 'sent'`;
      }
    }
  }

  private async receive(conn: Connection, data: RawData): Promise<void> {
    let parsed: unknown;
    try {
      // binaryType 'nodebuffer' (the default): a text message arrives as one Buffer.
      parsed = JSON.parse((data as Buffer).toString('utf8'));
    } catch {
      return this.d.logger.warn({ terminal_id: conn.terminalId }, 'link message unreadable');
    }
    const message = LinkKioskMessageSchema.safeParse(parsed);
    // A type this version does not know is ignored: a newer kiosk may send more.
    if (!message.success) return;
    try {
      switch (message.data.type) {
        case 'outcome':
          return await this.recordOutcome(conn, message.data);
        case 'doors':
          return await this.recordDoors(conn, message.data);
        case 'rejected':
          this.d.logger.warn(
            {
              alert: 'link_message_rejected',
              terminal_id: conn.terminalId,
              reason: message.data.reason,
              command_id: message.data.id,
            },
            'a kiosk refused a message on its link',
          );
          return;
        default: {
          const unknown: never = message.data;
          throw new Error(`unknown message ${String(unknown)}`);
        }
      }
    } catch (error) {
      this.d.logger.error({ err: error, terminal_id: conn.terminalId }, 'link message failed');
    }
  }

  /**
   * A command's outcome, recorded once (only a command sent to this very terminal), then
   * acknowledged so the kiosk forgets it; a repeat is acknowledged and changes nothing.
   */
  private async recordOutcome(conn: Connection, m: LinkOutcomeMessage): Promise<void> {
    // The outcome and its audit row commit together: whoever the notification wakes finds both.
    const row = await transaction(this.d.sql, async (tx) => {
      const [row] = await tx<{ id: string; kind: string; target: string; issued_by: string }[]>`
      update link_commands c
         set status = ${m.outcome === 'expired' ? 'expired' : 'done'},
             outcome = ${m.outcome}, outcome_detail = ${tx.json(m.detail as never)},
             outcome_at = ${m.at}
        from stations s
       where s.id = c.station_id and c.id = ${m.id} and c.terminal_id = ${conn.terminalId}
         and c.status = 'sent'
      returning c.id, c.kind, c.issued_by, s.code || coalesce('/' || c.door::text, '') as target`;
      if (row) await auditOutcome(tx, row, m.outcome);
      return row;
    });
    this.d.logger.info(
      {
        command_id: m.id,
        terminal_id: conn.terminalId,
        outcome: m.outcome,
        recorded: row !== undefined,
      },
      'link command outcome',
    );
    await this.send(conn, { type: 'outcome_ack', id: m.id });
  }

  private async recordDoors(conn: Connection, m: LinkDoorsMessage): Promise<void> {
    await recordDoorStates(this.d.softSql, { id: conn.stationId, code: conn.stationCode }, m.doors);
  }

  /** Ends every link (kiosks reconnect to another instance) and stops listening. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.pinger);
    clearInterval(this.instanceBeat);
    await this.unlisten?.();
    const open = [...this.byTerminal.values()];
    for (const conn of open) conn.ws.close(1001, 'service stopping');
    // Half a second for the closing handshakes, then whatever is left is cut.
    if (open.length > 0) await new Promise((r) => setTimeout(r, 500));
    for (const conn of open) conn.ws.terminate();
    const ids = open.map((c) => c.terminalId);
    this.byTerminal.clear();
    this.byStation.clear();
    await this.d.softSql`
      update terminal_links set disconnected_at = now()
       where instance_id = ${this.instanceId} and terminal_id = any(${ids}::uuid[])
         and disconnected_at is null`.catch(() => undefined);
    await this.d.sql`delete from link_instances where id = ${this.instanceId}`.catch(
      () => undefined,
    );
  }
}
