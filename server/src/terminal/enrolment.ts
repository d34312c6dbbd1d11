import { randomInt } from 'node:crypto';
import { EnrolRequestSchema, type EnrolResponse, type EnrolmentCode } from '@locker/shared';
import type { Middleware } from 'koa';
import QRCode from 'qrcode';
import type { Sql, TransactionSql } from '../db/connect';
import { hashSecret, newSecret, pickupCodeHash } from '../domain/secrets';
import { readJson } from '../http/body';
import { ProblemError, problem } from '../http/problem';
import { validate } from '../http/validate';
import { clientOf } from '../opsApi/auth';
import { recordAttempt, type SlidingWindow } from '../ratelimit/slidingWindow';
import type { Services } from '../services';

/** How long an enrolment code works: a working day and a night for the technician. */
export const ENROLMENT_CODE_HOURS = 24;

/**
 * Attempts per address: a technician mistyping a few times gets in; ten digits cannot be
 * guessed at 20 per 15 minutes (one in 10^10 per try, however many codes are live).
 */
export const ENROL_LIMIT: SlidingWindow = { limit: 20, windowSeconds: 15 * 60 };

const DIGITS = 10;

/** Ten digits from the CSPRNG, in groups of 4-4-2 as typed on the keypad. */
export function newEnrolmentCode(): string {
  const digits =
    String(randomInt(0, 100_000)).padStart(5, '0') + String(randomInt(0, 100_000)).padStart(5, '0');
  return `${digits.slice(0, 4)}-${digits.slice(4, 8)}-${digits.slice(8)}`;
}

/** The digits of a code as typed or scanned (spaces and dashes dropped); null if not ten. */
export function codeDigits(typed: string): string | null {
  const digits = typed.replace(/[\s-]/g, '');
  return new RegExp(`^\\d{${DIGITS}}$`).test(digits) ? digits : null;
}

/** Kept keyed (never the code): the domain prefix keeps it apart from pickup codes. */
export function enrolmentCodeHash(secret: string, digits: string): Buffer {
  return pickupCodeHash(secret, `enrol:${digits}`);
}

/**
 * A new one-time enrolment code for a terminal, valid 24 h; earlier unused codes of the
 * terminal stop working (one code per terminal at a time). Answered once: only its HMAC
 * is kept.
 */
export async function issueEnrolmentCode(
  tx: Sql | TransactionSql,
  secret: string,
  terminalId: string,
  createdBy: string,
): Promise<EnrolmentCode> {
  const code = newEnrolmentCode();
  await tx`
    update terminal_enrolment_codes set used_at = now()
     where terminal_id = ${terminalId} and used_at is null`;
  const [row] = await tx<{ expires_at: Date }[]>`
    insert into terminal_enrolment_codes (terminal_id, code_hash, expires_at, created_by)
    values (${terminalId}, ${enrolmentCodeHash(secret, codeDigits(code)!)},
            now() + make_interval(hours => ${ENROLMENT_CODE_HOURS}), ${createdBy})
    returning expires_at`;
  return {
    code,
    expires_at: row!.expires_at.toISOString(),
    qr_svg: await QRCode.toString(code, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }),
  };
}

/** The code as a QR code of text blocks, for a terminal (the CLI's `--qr`). */
export function enrolmentQrText(code: string): Promise<string> {
  return QRCode.toString(code, { type: 'terminal', small: true, errorCorrectionLevel: 'M' });
}

interface CodeRow {
  id: string;
  terminal_id: string;
  expired: boolean;
  used: boolean;
  revoked: boolean;
  station_code: string | null;
  station_name: string | null;
}

const refused = (detail: string) => new ProblemError('enrolment_refused', detail);

/**
 * `POST /terminal/v1/enrol` (no device token: this is how a kiosk gets one). The code
 * is judged under a per-address limit; a good one is used up in the same transaction
 * that gives the terminal its new token, so two kiosks typing it at once get one token.
 * The token replaces whatever the terminal had: a token printed at creation and never
 * used stops here.
 */
export function enrol(services: Services): Middleware {
  const { sql, config } = services;
  return async (ctx) => {
    const address = clientOf(ctx, config).address ?? '-';
    const judged = await recordAttempt(sql, `address:${address}`, 'enrol', ENROL_LIMIT);
    if (!judged.allowed) throw problem.rateLimited(judged.retryAfterSeconds);
    const { code } = validate(EnrolRequestSchema, await readJson(ctx));
    const digits = codeDigits(code);
    if (!digits)
      throw refused(
        'An enrolment code is ten digits, as the operator gave it (e.g. 4821-0937-55).',
      );
    const hash = enrolmentCodeHash(config.pickupCodeSecret, digits);
    const token = newSecret('tdev');
    const answer = await sql.begin(async (tx): Promise<EnrolResponse> => {
      const [row] = await tx<CodeRow[]>`
        select c.id, c.terminal_id, c.expires_at <= now() as expired,
               c.used_at is not null as used, t.revoked_at is not null as revoked,
               s.code as station_code, s.name as station_name
          from terminal_enrolment_codes c
          join terminals t on t.id = c.terminal_id
          left join stations s on s.id = t.station_id
         where c.code_hash = ${hash}
           for update of c, t`;
      if (!row)
        throw refused(
          'This enrolment code is not known: check the digits, or ask the operator for a new one.',
        );
      if (row.used)
        throw refused(
          'This enrolment code was used already; a code works once. Ask the operator for a new one.',
        );
      if (row.expired)
        throw refused(
          `This enrolment code has expired (a code works for ${ENROLMENT_CODE_HOURS} hours). Ask the operator for a new one.`,
        );
      if (row.revoked || row.station_code === null)
        throw refused('This terminal was revoked or has no station; ask the operator.');
      await tx`update terminal_enrolment_codes set used_at = now() where id = ${row.id}`;
      await tx`
        update terminals
           set token_hash = ${hashSecret(token)}, token_issued_at = now(),
               next_token_hash = null, next_token_issued_at = null
         where id = ${row.terminal_id}`;
      return {
        terminal_id: row.terminal_id,
        token,
        station: { code: row.station_code, name: row.station_name! },
      };
    });
    ctx.state.log.info(
      { terminal_id: answer.terminal_id, station_code: answer.station.code },
      'terminal enrolled',
    );
    ctx.body = answer;
  };
}
