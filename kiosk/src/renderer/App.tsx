import { INITIAL_STATE, outOfService, type KioskState } from '../bridge/api';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { kiosk, subscribe } from './bridge';
import { LANGUAGES } from './i18n';
import { CourierScreen, MaintenanceScreen, PickupScreen, ReturnScreen } from './screens';

type Screen = 'home' | 'pickup' | 'return' | 'courier' | 'maintenance';

// In service until the core says otherwise: no offline banner flashes while the screen loads.
const EMPTY: KioskState = INITIAL_STATE;

function useKioskState(): KioskState {
  const [state, setState] = useState<KioskState>(EMPTY);
  useEffect(() => {
    void kiosk.getState().then(setState);
    return subscribe(setState);
  }, []);
  return state;
}

/**
 * Back to home after the configured idle time; every input is cleared by remounting.
 * Only touches and keys count as activity: state pushed by the core (every heartbeat)
 * must not keep an abandoned screen alive.
 */
function useIdleTimeout(seconds: number, onIdle: () => void) {
  const latest = useRef(onIdle);
  latest.current = onIdle;
  useEffect(() => {
    let timer = setTimeout(() => latest.current(), seconds * 1000);
    const reset = () => {
      clearTimeout(timer);
      timer = setTimeout(() => latest.current(), seconds * 1000);
    };
    const events = ['pointerdown', 'keydown'] as const;
    events.forEach((e) => window.addEventListener(e, reset));
    return () => {
      clearTimeout(timer);
      events.forEach((e) => window.removeEventListener(e, reset));
    };
  }, [seconds]);
}

export function App() {
  const { t, i18n } = useTranslation();
  const state = useKioskState();
  const [screen, setScreen] = useState<Screen>(
    location.hash === '#maintenance' ? 'maintenance' : 'home',
  );
  const [visit, setVisit] = useState(0);
  const home = () => {
    setScreen('home');
    setVisit((v) => v + 1);
  };
  // A technician reaches the door grid at #maintenance, from any screen.
  useEffect(() => {
    const follow = () => setScreen(location.hash === '#maintenance' ? 'maintenance' : 'home');
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  const doorOpen = state.session?.active ?? false;
  useIdleTimeout(state.config?.idle_timeout_seconds ?? 60, () => {
    if (!doorOpen && screen !== 'maintenance') home();
  });
  const props = { state, home };

  return (
    <div className="app" lang={i18n.language}>
      <header className="top">
        <h1>{t('title')}</h1>
        <nav className="languages" aria-label={t('home.language')}>
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
        </nav>
      </header>
      {outOfService(state.condition) && (
        <p className="offline" role="status">
          {t('offline')}
        </p>
      )}
      <main key={visit}>
        {screen === 'home' && (
          <div className="home-actions">
            <button type="button" className="big" onClick={() => setScreen('pickup')}>
              {t('home.pickup')}
            </button>
            <button type="button" className="big" onClick={() => setScreen('return')}>
              {t('home.return')}
            </button>
            <button type="button" className="big big-quiet" onClick={() => setScreen('courier')}>
              {t('home.courier')}
            </button>
          </div>
        )}
        {screen === 'pickup' && <PickupScreen {...props} />}
        {screen === 'return' && <ReturnScreen {...props} />}
        {screen === 'courier' && <CourierScreen {...props} />}
        {screen === 'maintenance' && <MaintenanceScreen {...props} />}
      </main>
      <footer className="bottom">
        {state.config?.support_phone
          ? t('support', { phone: state.config.support_phone })
          : '\u00a0'}
      </footer>
    </div>
  );
}
