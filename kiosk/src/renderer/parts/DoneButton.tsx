import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * A final screen's way out: one large, full-width "Done" that also says, and shows as a
 * bar running out, when the screen goes back to the start by itself.
 */
export function DoneButton({ seconds, onDone }: { seconds: number; onDone: () => void }) {
  const { t } = useTranslation();
  const [left, setLeft] = useState(seconds);
  const done = useRef(onDone);
  done.current = onDone;
  useEffect(() => {
    const until = Date.now() + seconds * 1000;
    const timer = setInterval(() => {
      const remaining = Math.ceil((until - Date.now()) / 1000);
      if (remaining <= 0) {
        clearInterval(timer);
        done.current();
      } else setLeft(remaining);
    }, 250);
    return () => clearInterval(timer);
  }, [seconds]);
  return (
    <button type="button" className="primary done" onClick={() => done.current()}>
      <span className="done-label">{t('done')}</span>
      <span className="countdown">{t('final.countdown', { seconds: left })}</span>
      <span className="done-bar" aria-hidden="true" style={{ animationDuration: `${seconds}s` }} />
    </button>
  );
}
