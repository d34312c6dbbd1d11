import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useOptions } from '../options';
import { speaker } from '../speech/speaker';

/**
 * "Are you still there?", on screen and by sound, before the idle timeout sends this
 * person's screen home. Any touch extends the time; the button says so plainly. It covers
 * only the options bar, never the keypad: typing on is the natural answer.
 */
export function IdleWarning({ seconds }: { seconds: number }) {
  const { t } = useTranslation();
  const { say } = useOptions();
  useEffect(() => {
    speaker.beep();
    say(`${t('idle.title')} ${t('idle.more')}`);
  }, [say, t]);
  return (
    <div
      className="idle-warning"
      role="alertdialog"
      aria-labelledby="idle-title"
      aria-describedby="idle-text"
    >
      <div>
        <p id="idle-title" className="idle-title">
          {t('idle.title')}
        </p>
        <p id="idle-text">{t('idle.text', { seconds })}</p>
      </div>
      {/* Any touch counts as activity; this one is there to be found. */}
      <button type="button" className="primary">
        {t('idle.more')}
      </button>
    </div>
  );
}
