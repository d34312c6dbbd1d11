import { useTranslation } from 'react-i18next';
import { useConsole, useNow } from '../context';
import { exactTime, relativeTime } from '../format';

/**
 * A time as "12 min ago", the exact time in the operator's time zone on hover (title) and
 * to assistive technology; `exact` shows both in the text.
 */
export function Time({ at, exact = false }: { at: string; exact?: boolean }) {
  const { zone } = useConsole();
  const { t, i18n } = useTranslation();
  const now = useNow();
  const full = exactTime(at, zone, i18n.language);
  const relative = relativeTime(at, now, t);
  return (
    <time dateTime={at} title={full} className="time">
      {exact ? (
        <>
          {relative} <span className="muted">({full})</span>
        </>
      ) : (
        <>
          {relative}
          <span className="sr-only"> ({full})</span>
        </>
      )}
    </time>
  );
}
