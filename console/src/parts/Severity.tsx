import type { Alert } from '@locker/shared';
import { useTranslation } from 'react-i18next';

const MARK = { critical: '▲', warning: '◆', info: 'i' } as const;

/** Severity in a word and a shape as well as a colour. */
export function Severity({ severity }: { severity: Alert['severity'] }) {
  const { t } = useTranslation();
  return (
    <span className={`badge sev-${severity}`}>
      <span aria-hidden="true" className="mark">
        {MARK[severity]}
      </span>
      {t(`severity.${severity}`)}
    </span>
  );
}
