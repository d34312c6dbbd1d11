import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** Says what the screen waits for, once the wait is long enough to notice. */
export function Busy({ what }: { what: string }) {
  const { t } = useTranslation();
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setShown(true), 300);
    return () => clearTimeout(timer);
  }, []);
  return (
    <p className="busy" role="status">
      {shown ? t('common.loading', { what }) : ''}
    </p>
  );
}
