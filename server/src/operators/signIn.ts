import type { OperatorRole, SessionAnswer } from '@locker/shared';
import type { ServerConfig } from '../config';
import type { Sql } from '../db/connect';
import { problem, ProblemError } from '../http/problem';
import { recordAttempt } from '../ratelimit/slidingWindow';
import { operatorById, normalEmail } from './accounts';
import { audit, type Actor } from './audit';
import { checkPassword } from './passwords';
import { needsSecondFactor } from './roles';
import { open, seal } from './secretBox';
import { createSession, type LiveSession } from './sessions';
import { acceptedStep, newRecoveryCodes, newTotpSecret, recoveryCodeHash, totpUri } from './totp';

/** Sign-in attempts: per account, and per client address (an office behind one NAT). */
export const LOGIN_LIMITS = {
  account: { limit: 10, windowSeconds: 15 * 60 },
  address: { limit: 50, windowSeconds: 15 * 60 },
  /** Second-factor codes per operator: 10 guesses in 15 minutes of a 1-in-10^6 code. */
  secondFactor: { limit: 10, windowSeconds: 15 * 60 },
};

export interface Client {
  address: string | null;
  userAgent: string | null;
  correlationId: string;
}

function anonymous(client: Client, name: string): Actor {
  return {
    id: null,
    name,
    role: 'anonymous',
    stations: null,
    correlationId: client.correlationId,
    address: client.address,
  };
}

export function sessionActor(session: LiveSession, client: Client): Actor {
  return {
    id: session.operator_id,
    name: session.email,
    role: session.role,
    stations: session.role === 'technician' ? session.stations : null,
    correlationId: client.correlationId,
    address: client.address,
  };
}

export interface SignedIn {
  answer: SessionAnswer;
  /** A new session token to set as the cookie. */
  token?: string;
}

/**
 * E-mail and password. Unknown e-mail, deactivated account and wrong password get the
 * same answer at the same cost (a dummy hash is checked when there is no account). Both
 * throttles count every attempt, refused ones included.
 */
export async function signIn(
  sql: Sql,
  config: ServerConfig,
  email: string,
  password: string,
  now: Date,
  client: Client,
): Promise<SignedIn> {
  const typed = normalEmail(email);
  const actor = anonymous(client, typed);
  const attempt = { action: 'session.login', targetType: 'operator', target: typed };
  const [byAccount, byAddress] = await Promise.all([
    recordAttempt(sql, `account:${typed}`, 'ops_login', LOGIN_LIMITS.account),
    recordAttempt(sql, `address:${client.address ?? '-'}`, 'ops_login', LOGIN_LIMITS.address),
  ]);
  if (!byAccount.allowed || !byAddress.allowed) {
    await audit(sql, actor, { ...attempt, outcome: 'refused', reason: 'too many attempts' });
    throw problem.rateLimited(Math.max(byAccount.retryAfterSeconds, byAddress.retryAfterSeconds));
  }
  const [operator] = await sql<
    {
      id: string;
      role: OperatorRole;
      password_hash: string | null;
      totp_secret: string | null;
      totp_pending_secret: string | null;
    }[]
  >`
    select id, role, password_hash, totp_secret, totp_pending_secret from operators
     where email = ${typed} and deactivated_at is null`;
  const ok = await checkPassword(operator?.password_hash ?? null, password);
  if (!operator || !ok) {
    await audit(
      sql,
      { ...actor, id: operator?.id ?? null },
      { ...attempt, outcome: 'failed', reason: 'wrong e-mail or password' },
    );
    throw new ProblemError('invalid_credentials');
  }
  const signedActor = { ...actor, id: operator.id, role: operator.role };
  if (!needsSecondFactor(operator.role) && !operator.totp_secret) {
    const { token } = await createSession(sql, operator.id, 'complete', now, client);
    await audit(sql, signedActor, { ...attempt, outcome: 'ok' });
    return {
      token,
      answer: { stage: 'complete', operator: (await operatorById(sql, operator.id))! },
    };
  }
  const { token } = await createSession(sql, operator.id, 'password', now, client);
  await audit(sql, signedActor, { ...attempt, outcome: 'ok', detail: { stage: 'password' } });
  if (operator.totp_secret) return { token, answer: { stage: 'second_factor' } };
  // First sign-in: a secret to enrol, kept (encrypted) until its first code confirms it.
  let pending = operator.totp_pending_secret
    ? open(config, operator.totp_pending_secret)
    : undefined;
  if (!pending) {
    pending = newTotpSecret();
    await sql`update operators set totp_pending_secret = ${seal(config, pending)} where id = ${operator.id}`;
  }
  return { token, answer: { stage: 'second_factor_setup', otpauth_uri: totpUri(pending, typed) } };
}

async function throttleSecondFactor(sql: Sql, actor: Actor, action: string): Promise<void> {
  const judged = await recordAttempt(
    sql,
    `operator:${actor.id}`,
    'ops_second_factor',
    LOGIN_LIMITS.secondFactor,
  );
  if (judged.allowed) return;
  await audit(sql, actor, { action, outcome: 'refused', reason: 'too many attempts' });
  throw problem.rateLimited(judged.retryAfterSeconds);
}

/** Checks a TOTP code (or, with `recovery`, a recovery code) of the session's operator. */
async function checkSecondFactor(
  sql: Sql,
  config: ServerConfig,
  session: LiveSession,
  input: { code?: string | undefined; recovery_code?: string | undefined },
  now: Date,
): Promise<'totp' | 'recovery_code' | null> {
  if (input.recovery_code !== undefined) {
    const used = await sql`
      update operator_recovery_codes set used_at = ${now}
       where operator_id = ${session.operator_id} and code_hash = ${recoveryCodeHash(input.recovery_code)}
         and used_at is null`;
    return used.count === 1 ? 'recovery_code' : null;
  }
  if (!session.totp_secret || input.code === undefined) return null;
  const step = acceptedStep(
    open(config, session.totp_secret),
    input.code,
    now,
    session.totp_last_step === null ? null : Number(session.totp_last_step),
  );
  if (step === null) return null;
  // The step only moves forward: two requests with the same code, one wins.
  const moved = await sql`
    update operators set totp_last_step = ${step}
     where id = ${session.operator_id} and (totp_last_step is null or totp_last_step < ${step})`;
  return moved.count === 1 ? 'totp' : null;
}

/**
 * The second step of signing in: the authenticator's code (or a recovery code). On the
 * first sign-in the code confirms the enrolment and the recovery codes are answered,
 * once. The session gets a new token as it becomes complete.
 */
export async function completeSecondFactor(
  sql: Sql,
  config: ServerConfig,
  session: LiveSession,
  input: { code?: string | undefined; recovery_code?: string | undefined },
  now: Date,
  client: Client,
): Promise<SignedIn> {
  const actor = sessionActor(session, client);
  const action = 'session.second_factor';
  if (session.stage === 'complete')
    throw problem.conflict('This session is already signed in; use /session/step-up.');
  await throttleSecondFactor(sql, actor, action);
  let recovery: string[] | undefined;
  let how: 'totp' | 'recovery_code' | 'enrolment' | null;
  if (!session.totp_secret) {
    const pending = session.totp_pending_secret
      ? open(config, session.totp_pending_secret)
      : undefined;
    const step =
      pending && input.code !== undefined ? acceptedStep(pending, input.code, now, null) : null;
    how = step === null ? null : 'enrolment';
    if (step !== null) {
      recovery = newRecoveryCodes();
      await sql.begin(async (tx) => {
        await tx`
          update operators set totp_secret = totp_pending_secret, totp_pending_secret = null,
                               totp_last_step = ${step}
           where id = ${session.operator_id}`;
        await tx`delete from operator_recovery_codes where operator_id = ${session.operator_id}`;
        await tx`
          insert into operator_recovery_codes
            ${tx(recovery!.map((c) => ({ operator_id: session.operator_id, code_hash: recoveryCodeHash(c) })))}`;
      });
    }
  } else {
    how = await checkSecondFactor(sql, config, session, input, now);
  }
  if (!how) {
    await audit(sql, actor, { action, outcome: 'failed', reason: 'code not accepted' });
    throw new ProblemError('invalid_credentials');
  }
  const { token } = await sql.begin(async (tx) => {
    await tx`update operator_sessions set ended_at = ${now} where id = ${session.id}`;
    return createSession(tx, session.operator_id, 'complete', now, client, now);
  });
  await audit(sql, actor, { action, outcome: 'ok', detail: { method: how } });
  return {
    token,
    answer: {
      stage: 'complete',
      operator: (await operatorById(sql, session.operator_id))!,
      ...(recovery ? { recovery_codes: recovery } : {}),
    },
  };
}

/** Re-entering the second factor within a signed-in session (before a remote open). */
export async function stepUp(
  sql: Sql,
  config: ServerConfig,
  session: LiveSession,
  code: string,
  now: Date,
  client: Client,
): Promise<void> {
  const actor = sessionActor(session, client);
  const action = 'session.step_up';
  await throttleSecondFactor(sql, actor, action);
  const how = session.totp_secret
    ? await checkSecondFactor(sql, config, session, { code }, now)
    : null;
  if (!how) {
    await audit(sql, actor, { action, outcome: 'failed', reason: 'code not accepted' });
    throw new ProblemError('invalid_credentials');
  }
  await sql`update operator_sessions set second_factor_at = ${now} where id = ${session.id}`;
  await audit(sql, actor, { action, outcome: 'ok' });
}
