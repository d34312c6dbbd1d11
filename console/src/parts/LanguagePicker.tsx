import { useTranslation } from 'react-i18next';
import { LANGUAGES, type Language } from '../i18n';

/** Language buttons for the pages before sign-in. */
export function LanguagePicker({
  language,
  setLanguage,
}: {
  language: Language;
  setLanguage: (language: Language) => void;
}) {
  const { t } = useTranslation();
  return (
    <div className="language-picker" role="group" aria-label={t('shell.language')}>
      {LANGUAGES.map((l) => (
        <button
          key={l.code}
          type="button"
          lang={l.code}
          className="quiet"
          aria-pressed={l.code === language}
          onClick={() => setLanguage(l.code)}
        >
          {l.name}
        </button>
      ))}
    </div>
  );
}
