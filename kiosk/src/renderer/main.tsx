import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { isLanguage, setupI18n } from './i18n';
import './styles.css';

// The station's language: `?lang=` as the host opens the page; Albanian otherwise.
const requested = new URLSearchParams(location.search).get('lang') ?? 'sq';
const language = isLanguage(requested) ? requested : 'sq';
setupI18n(language);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App defaultLanguage={language} />
  </StrictMode>,
);
