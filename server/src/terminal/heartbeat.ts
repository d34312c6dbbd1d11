import { HeartbeatRequestSchema, type TerminalConfig } from '@locker/shared';
import type { Middleware } from 'koa';
import type { Services } from '../domain/services';
import { NO_BODY, readJson } from '../http/body';
import { validate } from '../http/validate';
import { stationOf } from './auth';

/**
 * Liveness and configuration. A heartbeat from an `offline` terminal clears the mark
 * (authentication lets it through); the configuration is read from the station each time.
 */
export function heartbeat({ sql }: Services): Middleware {
  return async (ctx) => {
    const sent = await readJson(ctx);
    const { appVersion } = validate(HeartbeatRequestSchema, sent === NO_BODY ? {} : sent);
    const terminal = ctx.state.terminal;
    const station = stationOf(terminal);
    await sql`
      update terminals
         set last_heartbeat_at = now(), app_version = ${appVersion ?? null},
             status = case when status = 'offline' then 'online' else status end
       where id = ${terminal.id}`;
    if (terminal.status === 'offline') {
      ctx.state.log.info(
        { terminal_id: terminal.id, station_code: station.code },
        'terminal back online',
      );
    }
    const body: TerminalConfig = {
      station_code: station.code,
      support_phone: station.supportPhone,
      idle_timeout_seconds: station.idleTimeoutSeconds,
      app_version: appVersion ?? null,
    };
    ctx.body = body;
  };
}
