import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** "Back to the start in N s", counting down, and then back to the start. */
export function Countdown({ seconds, onEnd }: { seconds: number; onEnd: () => void }) {
  const { t } = useTranslation();
  const [left, setLeft] = useState(seconds);
  const end = useRef(onEnd);
  end.current = onEnd;
  useEffect(() => {
    const until = Date.now() + seconds * 1000;
    const timer = setInterval(() => {
      const remaining = Math.ceil((until - Date.now()) / 1000);
      if (remaining <= 0) {
        clearInterval(timer);
        end.current();
      } else setLeft(remaining);
    }, 250);
    return () => clearInterval(timer);
  }, [seconds]);
  return (
    <p className="countdown" role="timer" aria-live="off">
      {t('final.countdown', { seconds: left })}
    </p>
  );
}
