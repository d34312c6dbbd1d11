import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api';
import { useErrorText } from './ErrorNote';

/** One action's state for a form: busy, and its error in words. */
export function useAction() {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (failure) {
      setError(failure instanceof ApiError ? errorText(failure) : t('errors.unknown'));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(undefined) };
}

export function ActionError({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p className="note error" role="alert">
      {error}
    </p>
  );
}
