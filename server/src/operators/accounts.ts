import { randomBytes } from 'node:crypto';
import type { CreateOperatorRequest, Operator, OperatorRole } from '@locker/shared';
import type { Sql, TransactionSql } from '../db/connect';
import { hashSecret } from '../domain/secrets';
import { ProblemError } from '../http/problem';
import { audit, type Actor } from './audit';
import { authorize } from './authorize';
import { hashPassword } from './passwords';
import { endAllSessions } from './sessions';

/** A set-up link works this long. */
const SETUP_HOURS = 72;

interface OperatorRow {
  id: string;
  email: string;
  role: OperatorRole;
  stations: string[];
  password_hash: string | null;
  totp_secret: string | null;
  deactivated_at: Date | null;
  created_at: Date;
  created_by: string;
}

function present(row: OperatorRow): Operator {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    stations: row.stations,
    set_up: row.password_hash !== null,
    second_factor_enrolled: row.totp_secret !== null,
    active: row.deactivated_at === null,
    created_at: row.created_at.toISOString(),
    created_by: row.created_by,
  };
}

function rowsOf(db: Sql | TransactionSql, where: ReturnType<Sql>) {
  return db<OperatorRow[]>`
    select o.id, o.email, o.role, o.password_hash, o.totp_secret, o.deactivated_at, o.created_at,
           o.created_by,
           array(select s.code from operator_stations x join stations s on s.id = x.station_id
                  where x.operator_id = o.id order by s.code) as stations
      from operators o where ${where}`;
}

export async function operatorById(
  db: Sql | TransactionSql,
  id: string,
): Promise<Operator | undefined> {
  const [row] = await rowsOf(db, db`o.id = ${id}`);
  return row && present(row);
}

/** The e-mail as stored and looked up: trimmed, lower-case. */
export function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}

function newSetupToken(): string {
  return `setup_${randomBytes(32).toString('base64url')}`;
}

export interface SetupIssued {
  operator: Operator;
  setup_token: string;
  setup_link: string;
  setup_expires_at: string;
}

async function stationIds(tx: TransactionSql, codes: string[]): Promise<string[]> {
  const unique = [...new Set(codes)];
  if (unique.length === 0) return [];
  const rows = await tx<{ id: string; code: string }[]>`
    select id, code from stations where code = any(${unique}) and sandbox_organization_id is null`;
  const missing = unique.filter((c) => !rows.some((r) => r.code === c));
  if (missing.length > 0) {
    throw new ProblemError('validation_failed', `No such station: ${missing.join(', ')}.`, [
      { field: 'stations', code: 'unknown_station', message: `no station ${missing.join(', ')}` },
    ]);
  }
  return rows.map((r) => r.id);
}

/**
 * A new operator and the one-time set-up link that lets them choose a password (their
 * first sign-in then sets up the second factor). The token is kept only as a hash.
 */
export async function createOperator(
  sql: Sql,
  actor: Actor,
  input: CreateOperatorRequest,
  publicUrl: string,
): Promise<SetupIssued> {
  const email = normalEmail(input.email);
  const attempt = { action: 'operator.create', targetType: 'operator', target: email };
  await authorize(sql, actor, 'operators.manage', attempt);
  const stations = input.stations ?? [];
  if (input.role === 'technician' && stations.length === 0) {
    throw new ProblemError('validation_failed', 'A technician needs at least one station.', [
      { field: 'stations', code: 'required', message: 'a technician needs at least one station' },
    ]);
  }
  if (input.role !== 'technician' && stations.length > 0) {
    throw new ProblemError('validation_failed', 'Only technicians are assigned stations.', [
      {
        field: 'stations',
        code: 'not_allowed',
        message: `the ${input.role} role sees every station`,
      },
    ]);
  }
  const token = newSetupToken();
  const expires = new Date(Date.now() + SETUP_HOURS * 3600_000);
  return sql.begin(async (tx) => {
    const ids = await stationIds(tx, stations);
    const [created] = await tx<{ id: string }[]>`
      insert into operators (email, role, setup_token_hash, setup_expires_at, created_by)
      values (${email}, ${input.role}, ${hashSecret(token)}, ${expires}, ${actor.name})
      on conflict (email) do nothing
      returning id`;
    if (!created) throw new ProblemError('conflict', `Operator ${email} already exists.`);
    if (ids.length > 0) {
      await tx`insert into operator_stations ${tx(ids.map((station_id) => ({ operator_id: created.id, station_id })))}`;
    }
    await audit(tx, actor, { ...attempt, outcome: 'ok', detail: { role: input.role, stations } });
    return {
      operator: (await operatorById(tx, created.id))!,
      setup_token: token,
      setup_link: `${publicUrl}/ops/setup#token=${token}`,
      setup_expires_at: expires.toISOString(),
    };
  });
}

export async function listOperators(sql: Sql, actor: Actor): Promise<Operator[]> {
  await authorize(sql, actor, 'operators.manage', { action: 'operator.list' });
  return (await rowsOf(sql, sql`true order by o.email`)).map(present);
}

async function findByEmail(tx: TransactionSql, email: string) {
  const [row] = await tx<{ id: string }[]>`
    select id from operators where email = ${normalEmail(email)} for update`;
  if (!row) throw new ProblemError('not_found', `Operator ${normalEmail(email)} not found.`);
  return row.id;
}

/** Deactivated, never deleted (the audit log names them); every session ends at once. */
export async function deactivateOperator(sql: Sql, actor: Actor, email: string): Promise<Operator> {
  const attempt = {
    action: 'operator.deactivate',
    targetType: 'operator',
    target: normalEmail(email),
  };
  await authorize(sql, actor, 'operators.manage', attempt);
  return sql.begin(async (tx) => {
    const id = await findByEmail(tx, email);
    await tx`update operators set deactivated_at = coalesce(deactivated_at, now()) where id = ${id}`;
    const ended = await endAllSessions(tx, id, new Date());
    await audit(tx, actor, { ...attempt, outcome: 'ok', detail: { sessions_ended: ended } });
    return (await operatorById(tx, id))!;
  });
}

/**
 * A forgotten password or a lost authenticator: password, second factor and recovery
 * codes are cleared, every session ends, and a new set-up link is issued.
 */
export async function resetOperator(
  sql: Sql,
  actor: Actor,
  email: string,
  publicUrl: string,
): Promise<SetupIssued> {
  const attempt = { action: 'operator.reset', targetType: 'operator', target: normalEmail(email) };
  await authorize(sql, actor, 'operators.manage', attempt);
  const token = newSetupToken();
  const expires = new Date(Date.now() + SETUP_HOURS * 3600_000);
  return sql.begin(async (tx) => {
    const id = await findByEmail(tx, email);
    await tx`
      update operators
         set password_hash = null, totp_secret = null, totp_pending_secret = null,
             totp_last_step = null, setup_token_hash = ${hashSecret(token)},
             setup_expires_at = ${expires}, deactivated_at = null
       where id = ${id}`;
    await tx`delete from operator_recovery_codes where operator_id = ${id}`;
    await endAllSessions(tx, id, new Date());
    await audit(tx, actor, { ...attempt, outcome: 'ok' });
    return {
      operator: (await operatorById(tx, id))!,
      setup_token: token,
      setup_link: `${publicUrl}/ops/setup#token=${token}`,
      setup_expires_at: expires.toISOString(),
    };
  });
}

/** The set-up link's page sends the token and the chosen password; the token then dies. */
export async function completeSetup(
  sql: Sql,
  actor: Actor,
  token: string,
  password: string,
  now: Date,
): Promise<void> {
  const hashed = await hashPassword(password);
  const [done] = await sql<{ id: string; email: string }[]>`
    update operators
       set password_hash = ${hashed}, setup_token_hash = null, setup_expires_at = null
     where setup_token_hash = ${hashSecret(token)} and setup_expires_at > ${now}
       and deactivated_at is null
    returning id, email`;
  if (!done) {
    await audit(sql, actor, {
      action: 'operator.setup',
      outcome: 'failed',
      reason: 'unknown or expired token',
    });
    throw new ProblemError(
      'invalid_credentials',
      'This set-up link is unknown, used or expired; ask an admin for a new one.',
    );
  }
  await audit(
    sql,
    { ...actor, id: done.id, name: done.email },
    {
      action: 'operator.setup',
      targetType: 'operator',
      target: done.email,
      outcome: 'ok',
    },
  );
}
