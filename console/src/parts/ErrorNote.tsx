import { useTranslation } from 'react-i18next';
import type { ApiError } from '../api';
import { en } from '../i18n/en';

type Code = keyof typeof en.errors;
const isCode = (code: string): code is Code => code in en.errors;

/** What went wrong and what to do next, in the operator's language. */
export function useErrorText() {
  const { t } = useTranslation();
  return (error: ApiError): string => {
    const known = isCode(error.code) ? t(`errors.${error.code}`) : t('errors.unknown');
    const fields = error.problem?.errors?.map((e) => `${e.field}: ${e.message}`).join('; ');
    const detail =
      error.code === 'validation_failed' || error.code === 'invalid_request'
        ? fields
        : error.code === 'forbidden' || error.code === 'not_found' || error.code === 'conflict'
          ? error.problem?.detail
          : undefined;
    return detail ? `${known} (${detail})` : known;
  };
}

export function ErrorNote({ error, onRetry }: { error: ApiError; onRetry?: () => void }) {
  const { t } = useTranslation();
  const text = useErrorText();
  return (
    <div className="note error" role="alert">
      <p>{text(error)}</p>
      {error.problem?.correlation_id && (
        <p className="muted small">{t('errors.reference', { id: error.problem.correlation_id })}</p>
      )}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}
