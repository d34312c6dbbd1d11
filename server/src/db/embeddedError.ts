/**
 * A failure to start the embedded PostgreSQL, as one sentence that names the cause and
 * the fix: printed as is, never with a stack trace.
 */
export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}
