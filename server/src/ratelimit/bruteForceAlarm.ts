import type { Sql } from '../db/connect';

/** "The limit was hit in `hitMinutes` of the last `ofLastMinutes` minutes." */
export interface AlarmPolicy {
  hitMinutes: number;
  ofLastMinutes: number;
}

export interface AlarmState {
  /** Minutes (epoch seconds / 60) in which the limit was hit, oldest first. */
  limitedMinutes: number[];
  episodeAlerted: boolean;
}

/**
 * The state after the limit was hit in `minute`, and whether that raises the alarm. An
 * episode lasts while hits keep coming with gaps shorter than `ofLastMinutes`; it raises
 * its alarm once, however long it goes on. A gap that long starts a new episode.
 */
export function afterLimitHit(
  state: AlarmState,
  minute: number,
  { hitMinutes, ofLastMinutes }: AlarmPolicy,
): { state: AlarmState; raise: boolean } {
  const last = state.limitedMinutes.at(-1);
  if (last === minute) return { state, raise: false };
  const newEpisode = last === undefined || last <= minute - ofLastMinutes;
  const minutes = [...(newEpisode ? [] : state.limitedMinutes), minute]
    .filter((m) => m > minute - ofLastMinutes)
    .slice(-hitMinutes);
  const alerted = newEpisode ? false : state.episodeAlerted;
  const raise = !alerted && minutes.length >= hitMinutes;
  return { state: { limitedMinutes: minutes, episodeAlerted: alerted || raise }, raise };
}

/**
 * Notes that `subject` hit its limit in `minute` (as `recordAttempt` judged it); true
 * when this raises the episode's alarm. Runs at most about once a minute per subject:
 * the caller skips it when the minute is already recorded. The row lock makes two
 * instances noting the same minute raise one alarm between them.
 */
export async function noteLimitHit(
  sql: Sql,
  subject: string,
  bucket: string,
  minute: number,
  policy: AlarmPolicy,
): Promise<boolean> {
  return sql.begin(async (tx) => {
    const [row] = await tx<{ limited_minutes: string[]; episode_alerted: boolean }[]>`
      select limited_minutes, episode_alerted from rate_limit_windows
       where subject = ${subject} and bucket = ${bucket}
       for update`;
    if (!row) return false;
    const { state, raise } = afterLimitHit(
      { limitedMinutes: row.limited_minutes.map(Number), episodeAlerted: row.episode_alerted },
      minute,
      policy,
    );
    await tx`
      update rate_limit_windows
         set limited_minutes = ${state.limitedMinutes.map(String)}::bigint[],
             episode_alerted = ${state.episodeAlerted}
       where subject = ${subject} and bucket = ${bucket}`;
    return raise;
  });
}
