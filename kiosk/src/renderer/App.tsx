import { INITIAL_STATE, type KioskState } from '../bridge/api';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { kiosk, subscribe } from './bridge';
import type { Language } from './i18n';
import { OptionsProvider, useOptions } from './options';
import { IdleWarning } from './parts/IdleWarning';
import { StaffEntry } from './parts/StaffEntry';
import { useIdle } from './parts/useIdle';
import { CourierScreen } from './screens/CourierScreen';
import { HelpScreen } from './screens/HelpScreen';
import { HomeScreen, type Task } from './screens/HomeScreen';
import { PickupScreen } from './screens/PickupScreen';
import { ReturnScreen } from './screens/ReturnScreen';
import { OutOfServiceScreen as OutOfService } from './screens/OutOfServiceScreen';
import { ServiceMenu } from './screens/ServiceMenu';
import { cabinetColumns, doorIsOpen, outOfService, workingAlone } from './kioskView';
import { speaker } from './speech/speaker';

type Route = 'home' | Task | 'service';

// In service until the core says otherwise: nothing flashes while the screen loads.
const EMPTY: KioskState = INITIAL_STATE;

function useKioskState(): KioskState {
  const [state, setState] = useState<KioskState>(EMPTY);
  useEffect(() => {
    void kiosk.getState().then(setState);
    return subscribe(setState);
  }, []);
  return state;
}

export function App({ defaultLanguage }: { defaultLanguage: Language }) {
  const [helpOpen, setHelpOpen] = useState(false);
  const openHelp = useCallback(() => setHelpOpen(true), []);
  return (
    <OptionsProvider defaultLanguage={defaultLanguage} openHelp={openHelp}>
      <Kiosk helpOpen={helpOpen} closeHelp={() => setHelpOpen(false)} />
    </OptionsProvider>
  );
}

function Kiosk({ helpOpen, closeHelp }: { helpOpen: boolean; closeHelp: () => void }) {
  const { t, i18n } = useTranslation();
  const { options, reset } = useOptions();
  const state = useKioskState();
  const [route, setRoute] = useState<Route>('home');
  const [visit, setVisit] = useState(0);
  // The door session on screen when this person's visit began: a later one is theirs, and
  // help can report its door. Null until the core's state first arrives.
  const [visitFrom, setVisitFrom] = useState<number | null>(null);
  const latestSession = useRef(state.session);
  latestSession.current = state.session;
  useEffect(() => {
    if (visitFrom === null && state !== EMPTY) setVisitFrom(state.session?.id ?? 0);
  }, [state, visitFrom]);
  // One person's visit ends: home, every input cleared (remount), options back to default.
  const home = useCallback(() => {
    setRoute('home');
    setVisitFrom(latestSession.current?.id ?? 0);
    setVisit((v) => v + 1);
    closeHelp();
    reset();
  }, [closeHelp, reset]);
  const back = useCallback(() => {
    setRoute('home');
    setVisit((v) => v + 1);
  }, []);
  // A technician, from any screen, out of service too: whoever was there has left.
  const openService = useCallback(() => {
    closeHelp();
    setRoute('service');
    setVisit((v) => v + 1);
  }, [closeHelp]);
  const { left, warning } = useIdle(
    state.config?.idle_timeout_seconds ?? 60,
    doorIsOpen(state),
    home,
  );

  // The page's language and the options as classes on <html>: rem sizes follow them.
  useEffect(() => {
    const root = document.documentElement;
    root.lang = i18n.language;
    root.classList.toggle('low', options.low);
    root.classList.toggle('contrast', options.contrast);
    root.classList.toggle('large', options.large);
  }, [i18n.language, options]);
  useEffect(() => speaker.warmUp(), []);
  // The service asked the screen to reload (the live link): the count grew past the first seen.
  const firstReloads = useRef<number | null>(null);
  useEffect(() => {
    if (state === EMPTY) return;
    if (firstReloads.current === null) firstReloads.current = state.screenReloads;
    else if (state.screenReloads > firstReloads.current) window.location.reload();
  }, [state]);

  const cause = outOfService(state);
  const props = { state, columns: cabinetColumns(state), home, back };
  const phone = state.config?.support_phone ?? '';
  const visitDoor =
    state.session && visitFrom !== null && state.session.id > visitFrom ? state.session.door : null;
  return (
    <div className="app">
      {/* Nobody is sent away mid-visit: the calm screen waits for the next person. */}
      {cause && route === 'home' && !helpOpen ? (
        <OutOfService reason={cause} phone={phone} />
      ) : (
        <>
          <div className="screen-host" key={visit} hidden={helpOpen}>
            {route === 'home' && (
              <HomeScreen start={setRoute} phone={phone} alone={workingAlone(state)} />
            )}
            {route === 'pickup' && <PickupScreen {...props} />}
            {route === 'return' && <ReturnScreen {...props} />}
            {route === 'courier' && <CourierScreen {...props} />}
            {route === 'service' && <ServiceMenu {...props} />}
          </div>
          {helpOpen && <HelpScreen phone={phone} door={visitDoor} close={closeHelp} />}
        </>
      )}
      {warning && route !== 'home' && <IdleWarning seconds={left} />}
      {state.remoteOpen?.session.active && (
        <p className="remote-open" role="status">
          {t(`remote.${state.remoteOpen.by}`, { door: state.remoteOpen.session.door })}
        </p>
      )}
      <StaffEntry open={openService} />
    </div>
  );
}
