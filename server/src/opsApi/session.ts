import {
  LoginRequestSchema,
  SecondFactorRequestSchema,
  SetupRequestSchema,
  StepUpRequestSchema,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { Services } from '../services';
import { NO_BODY, readJson } from '../http/body';
import { validate } from '../http/validate';
import { completeSetup, operatorById } from '../operators/accounts';
import { audit } from '../operators/audit';
import { endAllSessions, endSession } from '../operators/sessions';
import { completeSecondFactor, signIn, stepUp } from '../operators/signIn';
import { recordAttempt } from '../ratelimit/slidingWindow';
import { problem } from '../http/problem';
import { clientOf, limitsOf, now, sessionCookie } from './auth';

const body = async (ctx: Parameters<Middleware>[0]) => {
  const sent = await readJson(ctx);
  return sent === NO_BODY ? {} : sent;
};

/** POST /ops/v1/session: e-mail and password; the answer says what comes next. */
export function login(services: Services): Middleware {
  return async (ctx) => {
    const input = validate(LoginRequestSchema, await body(ctx));
    const result = await signIn(
      services.sql,
      services.config,
      input.email,
      input.password,
      now(services),
      clientOf(ctx, services.config),
    );
    if (result.token) ctx.set('Set-Cookie', sessionCookie(services.config, result.token));
    ctx.body = result.answer;
  };
}

/** POST /ops/v1/session/second-factor: the authenticator's code (or a recovery code). */
export function secondFactor(services: Services): Middleware {
  return async (ctx) => {
    const input = validate(SecondFactorRequestSchema, await body(ctx));
    const result = await completeSecondFactor(
      services.sql,
      services.config,
      ctx.state.session,
      input,
      now(services),
      clientOf(ctx, services.config),
    );
    if (result.token) ctx.set('Set-Cookie', sessionCookie(services.config, result.token));
    ctx.body = result.answer;
  };
}

/** POST /ops/v1/session/step-up: the code again, for an action that needs a recent one. */
export function stepUpRoute(services: Services): Middleware {
  return async (ctx) => {
    const input = validate(StepUpRequestSchema, await body(ctx));
    await stepUp(
      services.sql,
      services.config,
      ctx.state.session,
      input.code,
      now(services),
      clientOf(ctx, services.config),
    );
    ctx.status = 204;
  };
}

/** GET /ops/v1/session: who is signed in, and until when. */
export function currentSession(services: Services): Middleware {
  return async (ctx) => {
    const { session } = ctx.state;
    const limits = limitsOf(services.config);
    const lastSeen = ctx.state.opsNow;
    ctx.body = {
      operator: (await operatorById(services.sql, session.operator_id))!,
      session: {
        created_at: session.created_at.toISOString(),
        expires_at: new Date(session.created_at.getTime() + limits.absoluteMs).toISOString(),
        idle_expires_at: new Date(lastSeen.getTime() + limits.idleMs).toISOString(),
        second_factor_at: session.second_factor_at ? session.second_factor_at.toISOString() : null,
      },
    };
  };
}

/** DELETE /ops/v1/session: sign out here. */
export function logout(services: Services): Middleware {
  return async (ctx) => {
    await endSession(services.sql, ctx.state.session.id, now(services));
    await audit(services.sql, ctx.state.actor, { action: 'session.logout', outcome: 'ok' });
    ctx.set('Set-Cookie', sessionCookie(services.config, null));
    ctx.status = 204;
  };
}

/** DELETE /ops/v1/sessions: sign out everywhere (every session of this operator). */
export function logoutEverywhere(services: Services): Middleware {
  return async (ctx) => {
    const ended = await endAllSessions(services.sql, ctx.state.session.operator_id, now(services));
    await audit(services.sql, ctx.state.actor, {
      action: 'session.logout_everywhere',
      outcome: 'ok',
      detail: { sessions_ended: ended },
    });
    ctx.set('Set-Cookie', sessionCookie(services.config, null));
    ctx.status = 204;
  };
}

/** POST /ops/v1/setup: the set-up link's token and the password the operator chose. */
export function setup(services: Services): Middleware {
  return async (ctx) => {
    const input = validate(SetupRequestSchema, await body(ctx), 'validation_failed');
    const client = clientOf(ctx, services.config);
    const judged = await recordAttempt(
      services.sql,
      `address:${client.address ?? '-'}`,
      'ops_setup',
      { limit: 20, windowSeconds: 900 },
    );
    if (!judged.allowed) throw problem.rateLimited(judged.retryAfterSeconds);
    const actor = {
      id: null,
      name: 'set-up link',
      role: 'anonymous' as const,
      stations: null,
      correlationId: client.correlationId,
      address: client.address,
    };
    await completeSetup(services.sql, actor, input.token, input.password, now(services));
    ctx.status = 204;
  };
}
