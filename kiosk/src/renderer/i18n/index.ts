import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en } from './en';
import { sq } from './sq';
import { sr } from './sr';
import { tr } from './tr';

export const LANGUAGES = [
  { code: 'sq', name: 'Shqip' },
  { code: 'sr', name: 'Srpski' },
  { code: 'tr', name: 'Türkçe' },
  { code: 'en', name: 'English' },
] as const;
export type Language = (typeof LANGUAGES)[number]['code'];

export function isLanguage(code: string): code is Language {
  return LANGUAGES.some((l) => l.code === code);
}

export function setupI18n(language: string) {
  void i18next.use(initReactI18next).init({
    resources: {
      sq: { translation: sq },
      sr: { translation: sr },
      tr: { translation: tr },
      en: { translation: en },
    },
    lng: isLanguage(language) ? language : 'sq',
    fallbackLng: false,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
}
