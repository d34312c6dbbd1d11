import { CurrentSessionSchema, type Operator } from '@locker/shared';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Route, Router, Switch } from 'wouter';
import { ApiError, call, get, SIGNED_OUT_EVENT } from './api';
import { canFor, ConsoleContext, type Console } from './context';
import { switchLanguage, type Language } from './i18n';
import { Busy } from './parts/Busy';
import { ErrorNote } from './parts/ErrorNote';
import { Shell } from './parts/Shell';
import { saveLanguage, savedLanguage, savedZone, saveZone } from './prefs';
import { AlertsScreen } from './screens/Alerts';
import { AuditScreen } from './screens/Audit';
import { FleetScreen } from './screens/Fleet';
import { HomeScreen } from './screens/Home';
import { NotFound } from './screens/NotFound';
import { ParcelsScreen } from './screens/Parcels';
import { PeopleScreen } from './screens/People';
import { SetupScreen } from './screens/Setup';
import { SignInScreen } from './screens/SignIn';
import { StationScreen } from './screens/Station';

type SessionState =
  | { kind: 'checking' }
  | { kind: 'signed_out'; why?: 'expired' | 'signed_out' | 'everywhere' }
  | { kind: 'failed'; error: ApiError }
  | { kind: 'signed_in'; operator: Operator };

export function App() {
  const { t } = useTranslation();
  const [session, setSession] = useState<SessionState>({ kind: 'checking' });
  const [language, setLanguageState] = useState<Language>(savedLanguage);
  const [zone, setZoneState] = useState(savedZone);
  const [live, setLive] = useState('');

  const check = useCallback(() => {
    get('/session', CurrentSessionSchema).then(
      (answer) => setSession({ kind: 'signed_in', operator: answer.operator }),
      (error: unknown) => {
        if (error instanceof ApiError && (error.status === 401 || error.status === 403))
          setSession({ kind: 'signed_out' });
        else if (error instanceof ApiError) setSession({ kind: 'failed', error });
        else setSession({ kind: 'failed', error: new ApiError(0, 'unreadable', undefined) });
      },
    );
  }, []);
  useEffect(check, [check]);
  useEffect(() => {
    const onSignedOut = () => setSession({ kind: 'signed_out', why: 'expired' });
    window.addEventListener(SIGNED_OUT_EVENT, onSignedOut);
    return () => window.removeEventListener(SIGNED_OUT_EVENT, onSignedOut);
  }, []);

  const setLanguage = useCallback((next: Language) => {
    saveLanguage(next);
    setLanguageState(next);
    void switchLanguage(next);
  }, []);

  const value = useMemo<Console | null>(() => {
    if (session.kind !== 'signed_in') return null;
    return {
      operator: session.operator,
      can: canFor(session.operator),
      language,
      zone,
      setLanguage,
      setZone: (next) => {
        saveZone(next);
        setZoneState(next);
      },
      announce: (text) => {
        // Cleared first, so the same words twice are said twice.
        setLive('');
        setTimeout(() => setLive(text), 50);
      },
      signOut: async (everywhere) => {
        await call('DELETE', everywhere ? '/sessions' : '/session').catch(() => undefined);
        setSession({ kind: 'signed_out', why: everywhere ? 'everywhere' : 'signed_out' });
      },
    };
  }, [session, language, zone, setLanguage]);

  return (
    <Router base="/ops">
      <Switch>
        <Route path="/setup">
          <SetupScreen language={language} setLanguage={setLanguage} />
        </Route>
        <Route>
          {session.kind === 'checking' ? (
            <main id="main" className="center">
              <Busy what={t('signIn.checking')} />
            </main>
          ) : session.kind === 'failed' ? (
            <main id="main" className="center">
              <h1>{t('shell.brand')}</h1>
              <ErrorNote error={session.error} onRetry={check} />
            </main>
          ) : session.kind === 'signed_out' || !value ? (
            <SignInScreen
              why={session.kind === 'signed_out' ? session.why : undefined}
              language={language}
              setLanguage={setLanguage}
              onSignedIn={(operator) => setSession({ kind: 'signed_in', operator })}
            />
          ) : (
            <ConsoleContext.Provider value={value}>
              <Shell live={live}>
                <Switch>
                  <Route path="/" component={HomeScreen} />
                  <Route path="/alerts" component={AlertsScreen} />
                  <Route path="/fleet" component={FleetScreen} />
                  <Route path="/stations/:code" component={StationScreen} />
                  <Route path="/parcels" component={ParcelsScreen} />
                  <Route path="/people" nest>
                    <PeopleScreen />
                  </Route>
                  <Route path="/audit" component={AuditScreen} />
                  <Route component={NotFound} />
                </Switch>
              </Shell>
            </ConsoleContext.Provider>
          )}
        </Route>
      </Switch>
    </Router>
  );
}
