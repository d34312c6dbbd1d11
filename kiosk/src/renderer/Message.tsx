import type { Refusal } from '../bridge/api';
import { useTranslation } from 'react-i18next';
import { useEffect, useState } from 'react';

/** One sentence per refusal; a rate limit counts down its Retry-After. */
export function RefusalMessage({
  refusal,
  supportPhone,
}: {
  refusal: Refusal;
  supportPhone: string;
}) {
  const { t } = useTranslation();
  const [seconds, setSeconds] = useState(
    refusal.kind === 'rate_limited' ? refusal.retryAfterSeconds : 0,
  );
  useEffect(() => {
    if (refusal.kind !== 'rate_limited') return;
    setSeconds(refusal.retryAfterSeconds);
    const timer = setInterval(() => setSeconds((s) => Math.max(0, s - 1)), 1000);
    return () => clearInterval(timer);
  }, [refusal]);
  const values = {
    seconds,
    door: refusal.kind === 'door_failed' ? refusal.door : '',
    size: refusal.kind === 'cabinet_full' ? (refusal.size ?? '') : '',
    phone: supportPhone,
  };
  return (
    <p
      className={`message message-${refusal.kind === 'unavailable' ? 'warning' : 'error'}`}
      role="alert"
    >
      {t(`errors.${refusal.kind}`, values)}
    </p>
  );
}

export function isRefusal(value: unknown): value is Refusal {
  return (
    typeof value === 'object' &&
    value !== null &&
    !['door_open', 'door_unknown'].includes((value as { kind: string }).kind)
  );
}
