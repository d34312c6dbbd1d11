import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en } from './en';
import { sq } from './sq';

// The kiosk's approach: i18next with one typed object per language (a key missing in
// sq.ts is a compile error), chosen by the operator and kept in this browser.
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'sq', name: 'Shqip' },
] as const;
export type Language = (typeof LANGUAGES)[number]['code'];

export function isLanguage(code: string | null | undefined): code is Language {
  return LANGUAGES.some((l) => l.code === code);
}

export function setupI18n(language: Language) {
  void i18next.use(initReactI18next).init({
    resources: { en: { translation: en }, sq: { translation: sq } },
    lng: language,
    fallbackLng: false,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  document.documentElement.lang = language;
}

export async function switchLanguage(language: Language) {
  await i18next.changeLanguage(language);
  document.documentElement.lang = language;
}
