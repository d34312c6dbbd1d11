import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Middleware } from 'koa';
import send from 'koa-send';
import type { ServerConfig } from '../config';

/**
 * The console's own policy: its scripts and styles from this origin only, images from here
 * or `data:` (the TOTP QR code), the API on the same origin, never framed. React's style
 * props go through the CSSOM, which `style-src 'self'` allows.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PREFIX = '/ops';

/**
 * GET /ops/…: the operator console, built (`console/dist`, OPS_CONSOLE_DIR). Its hashed
 * assets are cached for a year; every other path is the single page (index.html, never
 * cached), which routes in the browser. /ops/v1 is the API and never reaches here.
 */
export function serveConsole(config: ServerConfig): Middleware {
  const root = config.opsConsoleDir;
  const index = path.join(root, 'index.html');
  return async (ctx, next) => {
    const ours =
      (ctx.method === 'GET' || ctx.method === 'HEAD') &&
      (ctx.path === PREFIX || ctx.path.startsWith(`${PREFIX}/`)) &&
      ctx.path !== '/ops/v1' &&
      !ctx.path.startsWith('/ops/v1/');
    if (!ours) {
      await next();
      return;
    }
    if (ctx.path === PREFIX) {
      ctx.redirect(`${PREFIX}/`);
      return;
    }
    ctx.set({
      'Content-Security-Policy': CONSOLE_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
    });
    if (!existsSync(index)) {
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `The operator console is not built in ${root}: run \`pnpm --filter @locker/console build\` (pnpm start does it by itself).\n`;
      return;
    }
    const file = ctx.path.slice(PREFIX.length + 1);
    if (file.startsWith('assets/')) {
      // Names carry their content's hash: a new build has new names.
      const sent = await send(ctx, file, { root, immutable: true, maxage: 365 * 24 * 3600_000 })
        .then(() => true)
        .catch((error: { status?: number }) => {
          // Not there, or a path outside the folder (koa-send's 403): nothing to send.
          if (error.status !== undefined && error.status >= 400 && error.status < 500) return false;
          throw error;
        });
      if (!sent) {
        ctx.status = 404;
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = 'Not found.\n';
      }
      return;
    }
    ctx.set('Cache-Control', 'no-cache');
    await send(ctx, 'index.html', { root });
  };
}
