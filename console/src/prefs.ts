import { isLanguage, type Language } from './i18n';

// The operator's language and time zone, kept in this browser (nothing secret).
const LANGUAGE_KEY = 'console.language';
const ZONE_KEY = 'console.timeZone';

export function savedLanguage(): Language {
  const saved = localStorage.getItem(LANGUAGE_KEY);
  if (isLanguage(saved)) return saved;
  return navigator.language.toLowerCase().startsWith('sq') ? 'sq' : 'en';
}

export function saveLanguage(language: Language) {
  localStorage.setItem(LANGUAGE_KEY, language);
}

export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

export function savedZone(): string {
  const saved = localStorage.getItem(ZONE_KEY);
  return saved && isZone(saved) ? saved : browserZone();
}

export function saveZone(zone: string) {
  localStorage.setItem(ZONE_KEY, zone);
}

export function isZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The zones to choose from: the browser's, the region's, and UTC. */
export function zones(): string[] {
  const known = ['Europe/Belgrade', 'Europe/Tirane', 'Europe/Warsaw', 'Europe/London', 'UTC'];
  return [...new Set([browserZone(), ...known])].filter(isZone);
}
