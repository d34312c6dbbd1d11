import type { KioskDatabase } from './database';

const WINDOW_MS = 60_000;

export type Judged = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * A sliding window of attempts per minute, as the service keeps its limits
 * (docs/decisions.md, "Rate limits"): every attempt is recorded, refused ones too; over
 * the limit, an attempt is refused with the seconds until the oldest attempt that matters
 * leaves the window. On disk (SQLite), so a restart does not reset it.
 */
export class AttemptWindow {
  constructor(
    private readonly db: KioskDatabase,
    private readonly kind: 'pickup' | 'courier',
    readonly limit: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Records an attempt and judges it. */
  attempt(): Judged {
    return this.db.transaction(() => {
      this.record();
      return this.judge();
    })();
  }

  /** Records an attempt the service judges (sent online); the window still counts it. */
  record(): void {
    this.db.prepare('insert into attempts (kind, at) values (?, ?)').run(this.kind, this.now());
    // The times of the last limit + 1 attempts are all the window ever needs.
    this.db
      .prepare(
        `delete from attempts where kind = ? and id not in
           (select id from attempts where kind = ? order by id desc limit ?)`,
      )
      .run(this.kind, this.kind, this.limit + 1);
  }

  /**
   * The judgement of the latest attempt recorded, exactly as the service judges it
   * (server/src/ratelimit/slidingWindow.ts): allowed when at most `limit` of the kept
   * attempts, itself included, are younger than the window; refused, the seconds until
   * the second-oldest kept attempt leaves it, so that retrying exactly then is allowed.
   */
  judge(): Judged {
    const kept = (
      this.db.prepare('select at from attempts where kind = ? order by id').all(this.kind) as {
        at: number;
      }[]
    ).map((r) => r.at);
    const latest = kept.at(-1) ?? this.now();
    const inWindow = kept.filter((t) => t > latest - WINDOW_MS).length;
    if (inWindow <= this.limit) return { allowed: true };
    const retryMs = kept[1]! + WINDOW_MS - latest;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(retryMs / 1000)) };
  }
}
