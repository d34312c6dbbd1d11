import type { Context, Middleware } from 'koa';
import type { ServerConfig } from '../config';
import type { Services } from '../services';
import { ProblemError } from '../http/problem';
import type { Actor } from '../operators/audit';
import { authorize, type Attempt } from '../operators/authorize';
import type { Permission } from '../operators/roles';
import { findSession, type LiveSession, type SessionLimits } from '../operators/sessions';
import { sessionActor, type Client } from '../operators/signIn';

declare module 'koa' {
  interface DefaultState {
    /** Set by `operatorSession` on /ops/v1 routes that need a signed-in operator. */
    session: LiveSession;
    actor: Actor;
    /** The time of this request by the server's (injectable) clock. */
    opsNow: Date;
  }
}

/** The cookie's name: `__Host-` (bound to this host, path /, Secure) when Secure is on. */
export function cookieName(config: ServerConfig): string {
  return config.opsCookieSecure ? '__Host-locker_ops' : 'locker_ops';
}

/** The Set-Cookie value: HttpOnly, SameSite=Strict, Path=/, Secure when configured. */
export function sessionCookie(config: ServerConfig, token: string | null): string {
  const lifetime = token === null ? 0 : config.opsSessionAbsoluteHours * 3600;
  return [
    `${cookieName(config)}=${token ?? ''}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${lifetime}`,
    ...(config.opsCookieSecure ? ['Secure'] : []),
  ].join('; ');
}

export function sessionToken(ctx: Context, config: ServerConfig): string | undefined {
  const name = cookieName(config);
  const header = ctx.get('cookie');
  for (const part of header.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name)
      return /^[A-Za-z0-9_-]{20,100}$/.test(value.join('=')) ? value.join('=') : undefined;
  }
  return undefined;
}

export function limitsOf(config: ServerConfig): SessionLimits {
  return {
    idleMs: config.opsSessionIdleMinutes * 60_000,
    absoluteMs: config.opsSessionAbsoluteHours * 3600_000,
  };
}

/** The client's address: the socket's, or X-Forwarded-For's last hop behind a trusted proxy. */
export function clientOf(ctx: Context, config: ServerConfig): Client {
  let address = ctx.req.socket.remoteAddress ?? null;
  if (config.trustProxy) {
    const forwarded = ctx
      .get('x-forwarded-for')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    address = forwarded.at(-1) ?? address;
  }
  return {
    address,
    userAgent: ctx.get('user-agent') || null,
    correlationId: ctx.state.correlationId,
  };
}

export const now = (services: Services): Date => (services.config.clock ?? (() => new Date()))();

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * CSRF: an unsafe request must come from an allowed origin: `Origin` equal to one of
 * OPS_ALLOWED_ORIGINS, or (when that is empty) to this server's own host. A request
 * without `Origin` is refused too (every browser sends it on these). SameSite=Strict
 * cookies are the second line.
 */
export function sameOrigin(config: ServerConfig): Middleware {
  return async (ctx, next) => {
    if (UNSAFE.has(ctx.method)) {
      const origin = ctx.get('origin');
      const allowed =
        config.opsAllowedOrigins.length > 0
          ? config.opsAllowedOrigins.includes(origin)
          : (() => {
              try {
                return new URL(origin).host === ctx.get('host');
              } catch {
                return false;
              }
            })();
      if (!origin || origin === 'null' || !allowed) {
        ctx.state.log?.warn(
          { origin: origin || null, path: ctx.path },
          'ops request from another origin refused',
        );
        throw new ProblemError(
          'origin_refused',
          'This request must come from the operator console.',
        );
      }
    }
    await next();
  };
}

/** The signed-in operator's session, or 401 (`second_factor_required` while half-way). */
export function operatorSession(
  services: Services,
  options: { allowPending?: boolean } = {},
): Middleware {
  return async (ctx, next) => {
    const token = sessionToken(ctx, services.config);
    if (!token) throw new ProblemError('unauthorized', 'Sign in first.');
    const at = now(services);
    const found = await findSession(services.sql, token, at, limitsOf(services.config));
    if (typeof found === 'string') {
      ctx.set('Set-Cookie', sessionCookie(services.config, null));
      throw new ProblemError(
        'unauthorized',
        found === 'idle' || found === 'absolute'
          ? 'Your session has expired; sign in again.'
          : 'Sign in first.',
      );
    }
    if (found.stage !== 'complete' && !options.allowPending) {
      throw new ProblemError(
        'second_factor_required',
        'Enter the code of your authenticator app to finish signing in.',
      );
    }
    ctx.state.session = found;
    ctx.state.opsNow = at;
    ctx.state.actor = sessionActor(found, clientOf(ctx, services.config));
    await next();
  };
}

/** Refuses (403, audited) a role without `permission`, before the handler runs. */
export function allow(services: Services, permission: Permission, action: string): Middleware {
  return async (ctx, next) => {
    const attempt: Attempt = { action, targetType: 'route', target: `${ctx.method} ${ctx.path}` };
    await authorize(services.sql, ctx.state.actor, permission, attempt);
    await next();
  };
}

/** How recent the second factor must be for a physical action (remote open). */
export const RECENT_SECOND_FACTOR_MS = 5 * 60_000;

/**
 * For the routes that open a door (the live link's remote open): the session's second
 * factor must have been entered within the last 5 minutes (`POST /ops/v1/session/step-up`),
 * else 403 `step_up_required`. Call it after `operatorSession`.
 */
export function requireRecentSecondFactor(ctx: Context): void {
  const { session, opsNow: at } = ctx.state;
  const entered = session.second_factor_at?.getTime();
  if (entered === undefined || at.getTime() - entered > RECENT_SECOND_FACTOR_MS) {
    throw new ProblemError(
      'step_up_required',
      'Enter your authenticator code again (POST /ops/v1/session/step-up) within 5 minutes of this action.',
    );
  }
}
