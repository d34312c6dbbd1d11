import { hasUnstorableCharacters } from '@locker/shared';
import type { Middleware } from 'koa';
import { problem } from './problem';

function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * A path naming a resource with U+0000 (`/track/…%00`) or an unpaired surrogate names
 * nothing that can exist: 404 here, before it could reach a query.
 */
export const refuseUnstorablePaths: Middleware = async (ctx, next) => {
  if (hasUnstorableCharacters(decoded(ctx.path))) throw problem.notFound();
  await next();
};
