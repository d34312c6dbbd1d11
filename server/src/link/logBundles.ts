import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import type { Sql } from '../db/connect';
import { ProblemError } from '../http/problem';

/** A log bundle is gzip-compressed JSON lines; a day of a busy kiosk's logs fits. */
export const LOG_BUNDLE_LIMIT_BYTES = 8 * 1024 * 1024;

const CLOSE = { Connection: 'close' };

/**
 * `POST /terminal/v1/link/logs/{commandId}`: the kiosk's answer to an `upload_logs`
 * command sent to it, gzip-compressed JSON lines (`Content-Type: application/gzip`).
 * Kept for the console to fetch; a repeat replaces it. 404 unless that command was sent
 * to this very terminal.
 */
export function uploadLogBundle(sql: Sql): Middleware {
  return async (ctx) => {
    const terminal = ctx.state.terminal;
    const commandId = (ctx.params as { commandId?: string }).commandId ?? '';
    const [command] = /^[0-9a-f-]{36}$/i.test(commandId)
      ? await sql<{ id: string }[]>`
          select id from link_commands
           where id = ${commandId} and terminal_id = ${terminal.id} and kind = 'upload_logs'
             and status in ('sent', 'done')`
      : [];
    if (!command) throw new ProblemError('not_found', 'No log upload was asked of this terminal.');
    const announced = ctx.req.headers['content-length'];
    if (announced !== undefined && Number(announced) > LOG_BUNDLE_LIMIT_BYTES)
      throw new ProblemError('payload_too_large', undefined, undefined, CLOSE);
    let body: Buffer;
    try {
      body = await getRawBody(ctx.req, { limit: LOG_BUNDLE_LIMIT_BYTES, length: announced });
    } catch (error) {
      if ((error as { type?: string }).type === 'entity.too.large')
        throw new ProblemError('payload_too_large', undefined, undefined, CLOSE);
      throw new ProblemError('bad_request', 'The body could not be read.', undefined, CLOSE);
    }
    // gzip's magic number: anything else is not what the kiosk sends.
    if (body.length < 18 || body[0] !== 0x1f || body[1] !== 0x8b)
      throw new ProblemError('bad_request', 'The body must be gzip-compressed JSON lines.');
    await sql`
      insert into link_log_bundles (command_id, terminal_id, content_type, body)
      values (${command.id}, ${terminal.id}, 'application/gzip', ${body})
      on conflict (command_id) do update
        set body = excluded.body, received_at = now()`;
    ctx.body = { ok: true };
  };
}

/** A stored bundle (for the console): gzip-compressed JSON lines. */
export async function logBundle(
  sql: Sql,
  commandId: string,
): Promise<{ body: Buffer; receivedAt: Date; terminalId: string } | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(commandId)) return undefined;
  const [row] = await sql<{ body: Buffer; received_at: Date; terminal_id: string }[]>`
    select body, received_at, terminal_id from link_log_bundles where command_id = ${commandId}`;
  return row && { body: row.body, receivedAt: row.received_at, terminalId: row.terminal_id };
}
