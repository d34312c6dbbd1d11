import type { CredentialsResponse } from '@locker/shared';
import type { Middleware } from 'koa';
import { hashSecret, newSecret } from '../domain/secrets';
import type { Services } from '../services';

/**
 * A device token is replaced once it is this old, so none reaches 30 days in use while
 * its kiosk is online (docs/decisions.md, "Device tokens rotate"). A kiosk offline longer
 * is let in with the old one when it comes back, and rotates then.
 */
export const ROTATE_AFTER_DAYS = 25;

/**
 * `POST /terminal/v1/credentials` (extension): a kiosk asks whether its token is due for
 * replacement. Due, it gets a new token (kept here as a hash beside the current one, which
 * keeps working); the first call made with the new one makes it the terminal's only token
 * (auth.ts). Asked again before that (the answer was lost), it gets another new one in
 * place of the unseen one: the kiosk never holds an offered token the service forgot.
 */
export function credentials(services: Services): Middleware {
  const { sql } = services;
  return async (ctx) => {
    const terminal = ctx.state.terminal;
    const [row] = await sql<{ due: boolean; rotate_after: Date }[]>`
      select token_issued_at + make_interval(days => ${ROTATE_AFTER_DAYS}) <= now() as due,
             token_issued_at + make_interval(days => ${ROTATE_AFTER_DAYS}) as rotate_after
        from terminals where id = ${terminal.id}`;
    let next: string | null = null;
    if (row!.due) {
      next = newSecret('tdev');
      await sql`
        update terminals
           set next_token_hash = ${hashSecret(next)}, next_token_issued_at = now()
         where id = ${terminal.id} and revoked_at is null`;
      ctx.state.log.info({ terminal_id: terminal.id }, 'device token offered for rotation');
    }
    const answer: CredentialsResponse = {
      next_token: next,
      rotate_after: row!.rotate_after.toISOString(),
    };
    ctx.body = answer;
  };
}
