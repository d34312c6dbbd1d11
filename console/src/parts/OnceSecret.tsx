import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** A secret shown once: the value, a copy button and the plain sentence that it is once. */
export function OnceSecret({ label, value }: { label: string; value: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  return (
    <div className="note secret" role="group" aria-label={label}>
      <p className="strong">{label}</p>
      <code className="secret-value">{value}</code>
      <p>{t('common.shownOnce')}</p>
      <button
        type="button"
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(() => setCopied(true));
        }}
      >
        {t('common.copy')}
      </button>
      <span role="status" className="muted">
        {copied ? t('common.copied') : ''}
      </span>
    </div>
  );
}
