import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, post } from '../api';
import type { Language } from '../i18n';
import { ErrorNote } from '../parts/ErrorNote';
import { LanguagePicker } from '../parts/LanguagePicker';

/**
 * The set-up link (`/ops/setup#token=…`, from `operator create` or an admin): the new
 * operator chooses a password, then signs in (and sets up the authenticator there).
 * The token sits in the fragment, which browsers never send to a server or a referrer.
 */
export function SetupScreen({
  language,
  setLanguage,
}: {
  language: Language;
  setLanguage: (language: Language) => void;
}) {
  const { t } = useTranslation();
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<ApiError>();
  const [mismatch, setMismatch] = useState(false);
  const [done, setDone] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [done]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setMismatch(password !== again);
    if (password !== again) return;
    setError(undefined);
    try {
      await post('/setup', { token, password });
      history.replaceState(null, '', '/ops/setup');
      setDone(true);
    } catch (failure) {
      setError(failure instanceof ApiError ? failure : new ApiError(0, 'unreadable', undefined));
    }
  };
  return (
    <main id="main" className="sign-in">
      <div className="sign-in-card">
        <p className="brand">{t('shell.brand')}</p>
        {done ? (
          <>
            <h1 ref={heading} tabIndex={-1}>
              {t('setup.doneTitle')}
            </h1>
            <p>{t('setup.done')}</p>
            <a className="button primary" href="/ops/">
              {t('setup.signIn')}
            </a>
          </>
        ) : !token ? (
          <>
            <h1 ref={heading} tabIndex={-1}>
              {t('setup.title')}
            </h1>
            <p className="note error">{t('setup.noToken')}</p>
          </>
        ) : (
          <form onSubmit={(e) => void submit(e)}>
            <h1 ref={heading} tabIndex={-1}>
              {t('setup.title')}
            </h1>
            <p>{t('setup.intro')}</p>
            <label>
              {t('setup.password')}
              <input
                type="password"
                autoComplete="new-password"
                minLength={12}
                required
                value={password}
                aria-describedby="password-rule"
                onChange={(e) => setPassword(e.target.value)}
              />
            </label>
            <p id="password-rule" className="muted small">
              {t('setup.rule')}
            </p>
            <label>
              {t('setup.again')}
              <input
                type="password"
                autoComplete="new-password"
                required
                value={again}
                onChange={(e) => setAgain(e.target.value)}
              />
            </label>
            {mismatch && (
              <p className="note error" role="alert">
                {t('setup.mismatch')}
              </p>
            )}
            <button type="submit" className="primary">
              {t('setup.submit')}
            </button>
          </form>
        )}
        {error && <ErrorNote error={error} />}
        <LanguagePicker language={language} setLanguage={setLanguage} />
      </div>
    </main>
  );
}
