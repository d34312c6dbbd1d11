import { randomBytes, randomUUID } from 'node:crypto';
import {
  LINK_COMMAND_TTL_SECONDS,
  LinkCommandArgsSchemas,
  type LinkCommandKind,
  type LinkCommandPayload,
  type LinkOutcome,
} from '@locker/shared';
import type { Sql, TransactionSql } from '../db/connect';
import { audit, type Actor } from '../operators/audit';
import { ProblemError } from '../http/problem';
import { transaction } from '../db/transaction';
import type { Logger } from '../logger';
import type { LinkSigner } from './signing';

export interface IssueCommand {
  stationCode: string;
  /** Required for open_door and door_service; null for the others. */
  door: number | null;
  kind: LinkCommandKind;
  args?: Record<string, unknown>;
  /** Who asked: an operator's id or email, or `cli:<user>`. */
  issuedBy: string;
  reason?: string | null;
}

/** A command as the service records it. */
export interface LinkCommandView {
  id: string;
  stationId: string;
  stationCode: string;
  terminalId: string | null;
  door: number | null;
  kind: LinkCommandKind;
  args: Record<string, unknown>;
  issuedBy: string;
  reason: string | null;
  issuedAt: Date;
  expiresAt: Date;
  status: 'pending' | 'sent' | 'done' | 'expired';
  sentAt: Date | null;
  outcome: LinkOutcome | null;
  outcomeDetail: Record<string, unknown> | null;
  outcomeAt: Date | null;
}

interface Row {
  id: string;
  station_id: string;
  station_code: string;
  terminal_id: string | null;
  door: number | null;
  kind: LinkCommandKind;
  args: Record<string, unknown>;
  issued_by: string;
  reason: string | null;
  issued_at: Date;
  expires_at: Date;
  status: LinkCommandView['status'];
  sent_at: Date | null;
  outcome: LinkOutcome | null;
  outcome_detail: Record<string, unknown> | null;
  outcome_at: Date | null;
}

function view(row: Row): LinkCommandView {
  return {
    id: row.id,
    stationId: row.station_id,
    stationCode: row.station_code,
    terminalId: row.terminal_id,
    door: row.door,
    kind: row.kind,
    args: row.args,
    issuedBy: row.issued_by,
    reason: row.reason,
    issuedAt: row.issued_at,
    expiresAt: row.expires_at,
    status: row.status,
    sentAt: row.sent_at,
    outcome: row.outcome,
    outcomeDetail: row.outcome_detail,
    outcomeAt: row.outcome_at,
  };
}

const DOOR_KINDS: ReadonlySet<LinkCommandKind> = new Set(['open_door', 'door_service']);

/**
 * Commands to kiosks: issued (signed, stored, announced to every instance), expired when
 * not delivered in time, and awaited. Delivery and outcomes are the hub's (hub.ts).
 */
export class LinkCommands {
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(
    private readonly sql: Sql,
    private readonly signer: LinkSigner | undefined,
    private readonly log: Logger,
  ) {}

  /** Wakes whoever awaits these commands (outcome notifications, from any instance). */
  async listen(): Promise<() => Promise<void>> {
    const subscription = await this.sql.listen(
      'locker_link_outcome',
      (id) => this.wake(id),
      // A reconnected listener may have missed outcomes: every waiter looks again.
      () => [...this.waiters.keys()].forEach((id) => this.wake(id)),
    );
    return () => subscription.unlisten();
  }

  private wake(id: string): void {
    const waiting = this.waiters.get(id);
    if (!waiting) return;
    this.waiters.delete(id);
    waiting.forEach((resolve) => resolve());
  }

  /**
   * Signs and records a command; the insert's notification brings it to the kiosk's
   * connection on whichever instance holds it. It is valid for 60 s from now.
   */
  async issue(input: IssueCommand, db: Sql | TransactionSql = this.sql): Promise<LinkCommandView> {
    if (!this.signer)
      throw new ProblemError(
        'internal_error',
        'Commands to kiosks need LINK_SIGNING_KEY to be set on the service.',
      );
    const args = LinkCommandArgsSchemas[input.kind].parse(input.args ?? {}) as Record<
      string,
      unknown
    >;
    if (DOOR_KINDS.has(input.kind) !== (input.door !== null))
      throw new Error(`${input.kind} ${DOOR_KINDS.has(input.kind) ? 'needs' : 'takes no'} door`);
    const [station] = await db<{ id: string; code: string; has_door: boolean }[]>`
      select s.id, s.code,
             exists (select 1 from doors d where d.station_id = s.id
                        and d.position = ${input.door ?? -1}) as has_door
        from stations s where s.code = ${input.stationCode}`;
    if (!station) throw new ProblemError('not_found', `No station ${input.stationCode}.`);
    if (input.door !== null && !station.has_door)
      throw new ProblemError('not_found', `Station ${station.code} has no door ${input.door}.`);
    const issuedAt = new Date();
    const expiresAt = new Date(issuedAt.getTime() + LINK_COMMAND_TTL_SECONDS * 1000);
    const payload: LinkCommandPayload = {
      v: 1,
      id: randomUUID(),
      station: station.code,
      door: input.door,
      kind: input.kind,
      args,
      nonce: randomBytes(18).toString('base64url'),
      issuedAt: issuedAt.toISOString(),
      expiresAt: expiresAt.toISOString(),
    };
    const text = JSON.stringify(payload);
    const signature = Buffer.from(this.signer.sign(text), 'base64');
    const [row] = await db<Row[]>`
      insert into link_commands (id, station_id, door, kind, args, nonce, payload, signature,
                                 issued_by, reason, issued_at, expires_at)
      values (${payload.id}, ${station.id}, ${input.door}, ${input.kind}, ${db.json(args as never)},
              ${payload.nonce}, ${text}, ${signature}, ${input.issuedBy}, ${input.reason ?? null},
              ${issuedAt}, ${expiresAt})
      returning *, ${station.code}::text as station_code`;
    this.log.info(
      {
        command_id: payload.id,
        station_code: station.code,
        door: input.door,
        kind: input.kind,
        issued_by: input.issuedBy,
      },
      'link command issued',
    );
    return view(row!);
  }

  async get(id: string): Promise<LinkCommandView | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    const [row] = await this.sql<Row[]>`
      select c.*, s.code as station_code
        from link_commands c join stations s on s.id = c.station_id
       where c.id = ${id}`;
    return row && view(row);
  }

  /**
   * The command once it has an outcome (done or expired), or as it stands after
   * `timeoutMs`. Woken by the outcome's notification, from any instance.
   */
  async waitForOutcome(id: string, timeoutMs: number): Promise<LinkCommandView | undefined> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      let wake!: () => void;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      const waiting = this.waiters.get(id) ?? new Set();
      waiting.add(wake);
      this.waiters.set(id, waiting);
      // Read after subscribing: an outcome between the two is not missed.
      const command = await this.get(id);
      const left = until - Date.now();
      if (!command || command.status === 'done' || command.status === 'expired' || left <= 0) {
        waiting.delete(wake);
        if (waiting.size === 0) this.waiters.delete(id);
        return command;
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([woken, new Promise((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
    }
  }

  /**
   * Commands never delivered within their 60 s expire, and are reported so; the hub never
   * sends one whose time has passed. Answers how many expired.
   */
  async expireDue(): Promise<number> {
    // Each expiry and its audit row commit together.
    const expired = await transaction(this.sql, async (tx) => {
      const rows = await tx<
        { id: string; kind: string; station_id: string; target: string; issued_by: string }[]
      >`
      update link_commands c
         set status = 'expired', outcome = 'expired', outcome_at = now(),
             outcome_detail = '{"reason":"not delivered in time"}'
        from stations s
       where s.id = c.station_id and c.status = 'pending' and c.expires_at <= now()
      returning c.id, c.kind, c.station_id, c.issued_by,
                s.code || coalesce('/' || c.door::text, '') as target`;
      for (const c of rows) await auditOutcome(tx, c, 'expired');
      return rows;
    });
    for (const c of expired) {
      this.log.warn(
        { command_id: c.id, kind: c.kind, station_id: c.station_id },
        'link command expired undelivered',
      );
    }
    return expired.length;
  }
}

/** The link's own entries in the audit log: outcomes arrive with no operator present. */
export function linkActor(): Actor {
  return {
    id: null,
    name: 'system:link',
    role: 'system',
    stations: null,
    correlationId: randomUUID(),
    address: null,
  };
}

/** A command's outcome, as an audit row beside the row of its issue. */
export async function auditOutcome(
  db: Sql | TransactionSql,
  command: { id: string; kind: string; target: string; issued_by: string },
  outcome: string,
): Promise<void> {
  await audit(db, linkActor(), {
    action:
      command.kind === 'open_door' ? 'door.remote_open.outcome' : `link.${command.kind}.outcome`,
    targetType: command.kind === 'open_door' ? 'door' : 'station',
    target: command.target,
    outcome: outcome === 'failed' || outcome === 'refused' ? 'failed' : 'ok',
    detail: { command_id: command.id, outcome, issued_by: command.issued_by },
  });
}
