import { PassThrough } from 'node:stream';
import type { Middleware } from 'koa';
import type { Services } from '../services';
import { findSession } from '../operators/sessions';
import { limitsOf, now, sessionToken } from './auth';

const KEEPALIVE_MS = 15_000;

/**
 * GET /ops/v1/alerts/stream: server-sent events, one `alert` event per change of an alert
 * the operator may see, from whichever instance (or the CLI) made it, and one `door` event
 * per report of doors whose sensor state changed (the live link), of the stations the
 * operator may see. A comment every
 * 15 s keeps proxies from closing it; the stream ends when the session does.
 */
export function alertStream(services: Services): Middleware {
  return (ctx) => {
    const hub = services.alertHub;
    const socket = ctx.req.socket;
    socket.setTimeout(0);
    socket.setNoDelay(true);
    socket.setKeepAlive(true);
    ctx.status = 200;
    ctx.set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    const stream = new PassThrough();
    ctx.body = stream;
    let sequence = 0;
    const unsubscribe = hub.subscribe(ctx.state.actor.stations, (event, alert) => {
      sequence += 1;
      stream.write(`event: alert\nid: ${sequence}\ndata: ${JSON.stringify({ event, alert })}\n\n`);
    });
    // The live link's door states, as kiosks push them (any instance): `event: door`.
    const unwatch = services.link.hub.watchDoors(ctx.state.actor.stations, (doors) => {
      sequence += 1;
      stream.write(`event: door\nid: ${sequence}\ndata: ${JSON.stringify(doors)}\n\n`);
    });
    const token = sessionToken(ctx, services.config);
    const keepalive = setInterval(() => {
      void (async () => {
        const live = token
          ? await findSession(services.sql, token, now(services), limitsOf(services.config), false)
          : 'none';
        if (typeof live === 'string') stream.end('event: session_ended\ndata: {}\n\n');
        else stream.write(': keepalive\n\n');
      })().catch(() => stream.end());
    }, KEEPALIVE_MS);
    keepalive.unref();
    const stop = () => {
      clearInterval(keepalive);
      unsubscribe();
      unwatch();
    };
    stream.once('close', stop);
    ctx.req.once('close', () => {
      stop();
      stream.end();
    });
    stream.write('retry: 3000\n: connected\n\n');
  };
}
