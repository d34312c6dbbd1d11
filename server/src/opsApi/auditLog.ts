import type { Sql } from '../db/connect';
import { decodeCursor, pageOf } from './cursor';

interface AuditRow {
  id: string;
  at: Date;
  actor_id: string | null;
  actor: string;
  role: string;
  action: string;
  target_type: string | null;
  target: string | null;
  reason: string | null;
  outcome: 'ok' | 'refused' | 'failed';
  detail: Record<string, unknown> | null;
  correlation_id: string | null;
  address: string | null;
}

const present = (r: AuditRow) => ({ ...r, id: String(r.id), at: r.at.toISOString() });

export interface AuditQuery {
  actor?: string | undefined;
  action?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

function conditions(sql: Sql, query: AuditQuery) {
  return sql`
    ${query.actor ? sql`actor = ${query.actor.toLowerCase()}` : sql`true`}
    and ${query.action ? sql`(action = ${query.action} or action like ${query.action.replace(/[\\%_]/g, (c) => `\\${c}`) + '.%'})` : sql`true`}
    and ${query.from ? sql`at >= ${query.from}::timestamptz` : sql`true`}
    and ${query.to ? sql`at < ${query.to}::timestamptz` : sql`true`}`;
}

/** Newest first; `action` matches a whole action or a group (`session` → `session.*`). */
export async function listAudit(sql: Sql, query: AuditQuery) {
  const limit = query.limit ?? 100;
  const after = query.cursor ? decodeCursor(query.cursor, ['digits']) : null;
  const rows = await sql<AuditRow[]>`
    select id::text, at, actor_id, actor, role, action, target_type, target, reason, outcome,
           detail, correlation_id, address
      from audit_log
     where ${conditions(sql, query)}
       and ${after === null ? sql`true` : sql`id < ${after[0]!}::bigint`}
     order by id desc limit ${limit + 1}`;
  return pageOf(rows, limit, (r) => [String(r.id)], present);
}

const CSV_COLUMNS = [
  'id',
  'at',
  'actor',
  'role',
  'action',
  'target_type',
  'target',
  'reason',
  'outcome',
  'correlation_id',
  'address',
  'detail',
] as const;

/** RFC 4180 field; a leading = + - @ is prefixed with ' so a spreadsheet never runs it. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The whole filtered log as CSV, newest first, read in pages so memory stays flat. */
export async function* auditCsv(sql: Sql, query: AuditQuery): AsyncGenerator<string> {
  yield CSV_COLUMNS.join(',') + '\r\n';
  let cursor: string | undefined;
  do {
    const page = await listAudit(sql, { ...query, cursor, limit: 500 });
    yield page.items
      .map(
        (r) =>
          CSV_COLUMNS.map((c) => csvField((r as Record<string, unknown>)[c])).join(',') + '\r\n',
      )
      .join('');
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}
