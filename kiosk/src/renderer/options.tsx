import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Language } from './i18n';
import { speaker } from './speech/speaker';

/** What one person may change for themselves; reset to the station's defaults after them. */
export interface AccessOptions {
  speech: boolean;
  low: boolean;
  contrast: boolean;
  large: boolean;
}
const DEFAULTS: AccessOptions = { speech: false, low: false, contrast: false, large: false };

interface OptionsContext {
  options: AccessOptions;
  toggle: (option: keyof AccessOptions) => void;
  /** Speech on from now (the speaker button, a long press on 5). */
  startSpeech: () => void;
  /** Says this in the screen's language, if speech is on. */
  say: (text: string) => void;
  openHelp: () => void;
  /** Back to the station's defaults, for the next person. */
  reset: () => void;
}

const Options = createContext<OptionsContext | null>(null);

export function useOptions(): OptionsContext {
  const context = useContext(Options);
  if (!context) throw new Error('useOptions outside OptionsProvider');
  return context;
}

export function OptionsProvider({
  defaultLanguage,
  openHelp,
  children,
}: {
  defaultLanguage: Language;
  openHelp: () => void;
  children: ReactNode;
}) {
  const { i18n } = useTranslation();
  const [options, setOptions] = useState(DEFAULTS);
  const language = i18n.language as Language;
  const say = useCallback(
    (text: string) => {
      if (options.speech && text) speaker.speak(text, language);
    },
    [options.speech, language],
  );
  const value = useMemo<OptionsContext>(
    () => ({
      options,
      toggle: (option) =>
        setOptions((current) => {
          if (option === 'speech' && current.speech) speaker.stop();
          return { ...current, [option]: !current[option] };
        }),
      startSpeech: () => setOptions((current) => ({ ...current, speech: true })),
      say,
      openHelp,
      reset: () => {
        speaker.stop();
        setOptions(DEFAULTS);
        if (i18n.language !== defaultLanguage) void i18n.changeLanguage(defaultLanguage);
      },
    }),
    [options, say, openHelp, i18n, defaultLanguage],
  );
  return <Options.Provider value={value}>{children}</Options.Provider>;
}
