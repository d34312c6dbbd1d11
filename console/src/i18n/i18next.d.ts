import 'i18next';
import type { en } from './en';

// Keys given to t() are checked against the English texts: a typo is a compile error.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof en };
  }
}
