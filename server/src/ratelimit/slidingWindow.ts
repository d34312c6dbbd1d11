import type { PendingQuery, Row } from 'postgres';
import type { Sql, TransactionSql } from '../db/connect';
import { softCommit, softCommitRead } from '../db/softCommit';

export interface SlidingWindow {
  /** Attempts allowed per window, the attempt being judged included. */
  limit: number;
  windowSeconds: number;
}

export interface Judgement {
  allowed: boolean;
  /** Whole seconds until an attempt would be allowed again; 0 when allowed. */
  retryAfterSeconds: number;
  /** The minute (epoch seconds / 60) of this attempt, by the database's clock. */
  minute: number;
  /** The latest minute already recorded as one in which the limit was hit. */
  lastLimitedMinute: number | null;
}

/**
 * Records one attempt of `subject` in `bucket` and judges it on an exact sliding window,
 * held in PostgreSQL so every server instance shares it. Refused attempts count too.
 *
 * The row keeps only the times of the last `limit + 1` attempts, and of those only the
 * ones still inside the window, because that is all an exact judgement needs: the
 * attempt is allowed when at most `limit` of them, itself included, are younger than the
 * window. So each attempt costs one statement on one row of bounded size, however long a
 * flood has lasted (the old design inserted a row per attempt and read back every row of
 * the window); a row is rewritten whole at each attempt, so the bound is also its cost:
 * the times of a busy subject's last minute (issue 28: a marketplace allowed 100,000 a
 * minute kept every request since its first, each one costing more than the last). The
 * row lock of the upsert serialises one subject's attempts; `clock_timestamp()` is read
 * after that lock, and never kept before the newest time, so the times in the array only
 * ever grow.
 */
export async function recordAttempt(
  sql: Sql | TransactionSql,
  subject: string,
  bucket: string,
  window: SlidingWindow,
  /** The attempt's time, for a test's clock; by default the database's, read after the lock. */
  at?: Date,
  options: AttemptOptions = {},
): Promise<Judgement> {
  const [row] = await sql<JudgedRow[]>`
    with ${attemptQuery(sql, subject, bucket, window, at, options)} select * from judged`;
  if (!row) throw new Error('rate limit upsert returned no row');
  return judgementOf(row, window);
}

/** What the `judged` CTE of `attemptQuery` answers. */
export interface JudgedRow {
  in_window: number;
  retry_ms: number | null;
  minute: string;
  last_limited: string | null;
}

/**
 * `recordAttempt`'s statement as CTEs (`attempt`, then `judged`, one row), for a caller
 * that does its own work in the same statement: `judged.in_window <= limit` is "allowed".
 */
export function attemptQuery(
  sql: Sql | TransactionSql,
  subject: string,
  bucket: string,
  window: SlidingWindow,
  at?: Date,
  options: AttemptOptions = {},
) {
  const subjectOf = { subject: sql`${subject}::text`, from: sql`` };
  return attemptQueryOf(sql, subjectOf, bucket, window, at, options);
}

export interface AttemptOptions {
  /**
   * The statement's transaction commits without waiting for its WAL to reach the disk
   * (`synchronous_commit = off` for that transaction alone; issue 28). For a statement
   * that is its own transaction and writes nothing but the attempt: a crash of
   * PostgreSQL itself (not of a server) may forget the attempts of its last 0.6 s (three
   * times `wal_writer_delay`), which lets a guesser at most that many more tries once per
   * crash, and never loses or reorders anything else. A busy hour's pickups and merchant
   * requests each waited for a flush of their own: ~40 % of the flushes at 30 % of the
   * hour, the WAL's fsync busy 40 % of the time, one flush at a time.
   */
  soft?: boolean;
}

/**
 * The same, for a subject the statement itself finds: `subject` is a text expression over
 * `from` (e.g. `org.id::text` over `from org`, a CTE before these). When `from` yields no
 * row, no attempt is recorded and `judged` is empty.
 */
export function attemptQueryOf(
  sql: Sql | TransactionSql,
  { subject, from }: { subject: PendingQuery<Row[]>; from: PendingQuery<Row[]> },
  bucket: string,
  { limit, windowSeconds }: SlidingWindow,
  at?: Date,
  { soft = false }: AttemptOptions = {},
) {
  const now = at ? sql`${at}::timestamptz` : sql`clock_timestamp()`;
  return sql`
    ${soft ? sql`${softCommit(sql)},` : sql``}
    attempt as (
      insert into rate_limit_windows as w (subject, bucket, attempts)
      select ${subject}, ${bucket}, array[${now}] ${from}
      on conflict (subject, bucket) do update
        -- The time read once: the attempt, and the edge of its window.
        set attempts = (
          select (w.attempts || n.at)[greatest(
                   cardinality(w.attempts) + 1 - ${limit},
                   -- Past the window's edge (a binary search of the sorted times).
                   width_bucket(n.at - make_interval(secs => ${windowSeconds}), w.attempts) + 1):]
            -- Never before the newest kept: the times stay sorted (the searches need it)
            -- even if the database's clock steps back.
            from (select greatest(${now}, w.attempts[cardinality(w.attempts)]) as at) n)
      returning attempts, limited_minutes
    ),
    judged as (
      select cardinality(a.attempts)
               - width_bucket(a.attempts[cardinality(a.attempts)] - make_interval(secs => ${windowSeconds}),
                              a.attempts) as in_window,
             -- Refused: the oldest kept attempt is the one that has to age out first.
             case when cardinality(a.attempts) > ${limit} then
               extract(epoch from a.attempts[2] + make_interval(secs => ${windowSeconds})
                                  - a.attempts[cardinality(a.attempts)]) * 1000
             end::float8 as retry_ms,
             floor(extract(epoch from a.attempts[cardinality(a.attempts)]) / 60)::bigint as minute,
             a.limited_minutes[cardinality(a.limited_minutes)] as last_limited
        from attempt a ${soft ? sql`where ${softCommitRead(sql)}` : sql``}
    )`;
}

/** The judgement of an attempt from its `judged` row. */
export function judgementOf(row: JudgedRow, { limit }: SlidingWindow): Judgement {
  const minutes = {
    minute: Number(row.minute),
    lastLimitedMinute: row.last_limited === null ? null : Number(row.last_limited),
  };
  if (row.in_window <= limit) return { allowed: true, retryAfterSeconds: 0, ...minutes };
  // Rounded up, so retrying after exactly this long is allowed (if nothing else came in).
  const retryAfterSeconds = Math.max(1, Math.ceil((row.retry_ms ?? 1000) / 1000));
  return { allowed: false, retryAfterSeconds, ...minutes };
}

/** Rows whose newest attempt left every window and whose alarm episode is over. */
export async function pruneRateLimitWindows(sql: Sql): Promise<void> {
  await sql`
    delete from rate_limit_windows
     where attempts[cardinality(attempts)] < now() - interval '1 hour'`;
}
