import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LANGUAGES } from '../i18n';
import { useOptions, type AccessOptions } from '../options';
import { ContrastIcon, HelpIcon, LargeTextIcon, LowIcon, SpeakerIcon } from './Icons';

const TOGGLES: { option: keyof AccessOptions; icon: ReactNode }[] = [
  { option: 'speech', icon: <SpeakerIcon /> },
  { option: 'low', icon: <LowIcon /> },
  { option: 'contrast', icon: <ContrastIcon /> },
  { option: 'large', icon: <LargeTextIcon /> },
];

/** On every screen, within reach: help, the four accessibility options, the language. */
export function OptionsBar({ help = true }: { help?: boolean }) {
  const { t, i18n } = useTranslation();
  const { options, toggle, openHelp } = useOptions();
  return (
    <nav className="screen-options" aria-label={t('options.label')}>
      <div className="options-row">
        {help && (
          <button type="button" className="option-help" onClick={openHelp}>
            <HelpIcon />
            {t('options.help')}
          </button>
        )}
        {TOGGLES.map(({ option, icon }) => (
          <button
            key={option}
            type="button"
            className={`option option-${option}`}
            aria-label={t(`options.${option}`)}
            title={t(`options.${option}`)}
            aria-pressed={options[option]}
            onClick={() => toggle(option)}
          >
            {icon}
          </button>
        ))}
      </div>
      <div className="options-row languages" role="group" aria-label={t('language')}>
        {LANGUAGES.map((l) => (
          <button
            key={l.code}
            type="button"
            lang={l.code}
            aria-pressed={i18n.language === l.code}
            onClick={() => void i18n.changeLanguage(l.code)}
          >
            {l.name}
          </button>
        ))}
      </div>
    </nav>
  );
}
