import { HeartbeatRequestSchema, type TerminalConfig } from '@locker/shared';
import type { Middleware } from 'koa';
import type { Services } from '../services';
import { NO_BODY, readJson } from '../http/body';
import { validate } from '../http/validate';
import { ProblemError } from '../http/problem';

interface Configuration {
  code: string;
  support_phone: string;
  idle_timeout_seconds: number;
}

/**
 * Liveness and configuration. A heartbeat from an `offline` terminal clears the mark
 * (authentication lets it through). The configuration is read from the station by the
 * same statement that records the heartbeat, so it is always as stored, never cached.
 */
export function heartbeat({ softSql, authCache }: Services): Middleware {
  return async (ctx) => {
    const sent = await readJson(ctx);
    const { appVersion } = validate(HeartbeatRequestSchema, sent === NO_BODY ? {} : sent);
    const terminal = ctx.state.terminal;
    const [config] = await softSql<Configuration[]>`
      update terminals t
         set last_heartbeat_at = now(), app_version = ${appVersion ?? null},
             status = case when t.status = 'offline' then 'online' else t.status end
        from stations s
       where t.id = ${terminal.id} and s.id = t.station_id
      returning s.code, s.support_phone, s.idle_timeout_seconds`;
    if (!config) throw new ProblemError('internal_error');
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
