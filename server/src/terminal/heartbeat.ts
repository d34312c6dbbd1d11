import { HeartbeatRequestSchema, type TerminalConfig } from '@locker/shared';
import type { Middleware } from 'koa';
import type { Services } from '../services';
import { NO_BODY, readJson } from '../http/body';
import { validate } from '../http/validate';
import { problem } from '../http/problem';
import { HeartbeatBatch } from './heartbeatBatch';

/**
 * Liveness and configuration. A heartbeat from an `offline` terminal clears the mark
 * (authentication lets it through). The configuration is read from the station by the
 * same statement that records the heartbeat, so it is always as stored, never cached.
 * Heartbeats arriving together share that statement (`HeartbeatBatch`).
 */
export function heartbeat({ softSql, authCache, config: settings }: Services): Middleware {
  const batch = new HeartbeatBatch(softSql, { windowMs: settings.heartbeatBatchMs });
  return async (ctx) => {
    const sent = await readJson(ctx);
    const { appVersion } = validate(HeartbeatRequestSchema, sent === NO_BODY ? {} : sent);
    const terminal = ctx.state.terminal;
    const config = await batch.record(terminal.id, appVersion ?? null);
    // Revoked (or deleted) between its authentication and the write: refused as
    // authentication refuses it, and its row is left as it was.
    if (!config) throw problem.unauthorized();
    if (terminal.status === 'offline') {
      // The change notification arrives a moment later; the kiosk's very next request
      // must already find this terminal online on this instance.
      authCache.invalidate(terminal.id);
      ctx.state.log.info(
        { terminal_id: terminal.id, station_code: config.code },
        'terminal back online',
      );
    }
    const body: TerminalConfig = {
      station_code: config.code,
      support_phone: config.support_phone,
      idle_timeout_seconds: config.idle_timeout_seconds,
      app_version: appVersion ?? null,
    };
    ctx.body = body;
  };
}
