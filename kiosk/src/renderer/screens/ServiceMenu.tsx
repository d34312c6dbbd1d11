import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { EnrolResult, TechnicianLogin } from '../../bridge/technician';
import { kiosk } from '../bridge';
import { BackButton } from '../parts/BackButton';
import { CameraScanner } from '../parts/CameraScanner';
import { Keypad } from '../parts/Keypad';
import { Screen, type ScreenMessage } from '../parts/Screen';
import { MaintenanceView } from './MaintenanceView';
import type { ScreenProps } from './props';

/**
 * The enrolment code as its QR code carries it ("1234-5678-90"), a handheld scanner types
 * it, or a technician writes it down: its ten digits, or null for anything else.
 */
export function enrolmentDigits(text: string): string | null {
  const digits = text.replace(/[\s-]/g, '');
  return /^\d{10}$/.test(digits) ? digits : null;
}

/**
 * The enrolment, behind the PIN: the operator's one-time code typed, scanned by a handheld
 * scanner acting as a keyboard (the keypad takes its digits and Enter, and ignores the
 * separators), or read by the camera from its QR code; exchanged by the core for this
 * kiosk's own token; the station it is now bound to is shown. The core checks the PIN
 * again: the screen is trusted with nothing.
 */
function Enrolment({ pin, done }: { pin: string; done: () => void }) {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<EnrolResult | null>(null);
  const submit = async (typed = code) => {
    setBusy(true);
    const answer = await kiosk
      .enrol(pin, typed)
      .catch((): EnrolResult => ({ kind: 'refused', message: t('service.enrolFailed') }));
    setBusy(false);
    setCode('');
    setResult(answer);
  };
  const message: ScreenMessage | null =
    result?.kind === 'enrolled'
      ? {
          text: t('service.enrolled', { code: result.station.code, name: result.station.name }),
          tone: 'success',
        }
      : result?.kind === 'refused'
        ? { text: result.message, tone: 'error' }
        : result?.kind === 'not_allowed'
          ? { text: t('service.wrong'), tone: 'error' }
          : null;
  return (
    <Screen
      name="enrolment"
      heading={t('service.enrol')}
      instruction={t('service.enrolInstruction')}
      message={message}
      info={
        // Paused once enrolled: the same QR code still in view would only be refused.
        <CameraScanner
          hint={t('service.enrolCamera')}
          paused={busy || result?.kind === 'enrolled'}
          onCode={(text) => {
            const digits = enrolmentDigits(text);
            if (!digits) return;
            setCode(digits);
            void submit(digits);
          }}
        />
      }
      actions={<BackButton onClick={done} />}
      main={
        <Keypad
          value={code}
          onChange={setCode}
          onSubmit={() => void submit()}
          onCancel={done}
          minLength={10}
          maxLength={10}
          groups={[4, 4, 2]}
          label={t('service.enrolInstruction')}
          busy={busy}
        />
      }
    />
  );
}

/**
 * The technician's service menu, on the screen itself: a PIN (checked by the core against
 * the hash in the kiosk configuration), then the maintenance view and the enrolment.
 */
export function ServiceMenu({ state, home }: ScreenProps) {
  const { t } = useTranslation();
  const [pin, setPin] = useState('');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<TechnicianLogin | null>(null);
  // Kept while the menu is open, for the enrolment (the core asks for it again).
  const [grantedPin, setGrantedPin] = useState('');
  const [enrolling, setEnrolling] = useState(false);
  const login = async () => {
    setBusy(true);
    const result = await kiosk
      .technicianLogin(pin)
      .catch((): TechnicianLogin => ({ kind: 'refused', retryAfterSeconds: 0 }));
    setBusy(false);
    if (result.kind === 'granted') setGrantedPin(pin);
    setPin('');
    setAnswer(result);
  };
  if (answer?.kind === 'granted' && enrolling) {
    return <Enrolment pin={grantedPin} done={() => setEnrolling(false)} />;
  }
  if (answer?.kind === 'granted') {
    return (
      <Screen
        name="maintenance"
        heading={t('maintenance.title')}
        instruction={t('service.title')}
        actions={
          <>
            <BackButton onClick={home} label={t('service.leave')} />
            <button type="button" className="secondary" onClick={() => setEnrolling(true)}>
              {t('service.enrol')}
            </button>
          </>
        }
        main={
          // Every door's row, scrolled by touch or, once focused, by keyboard.
          <div
            className="maintenance-scroll"
            tabIndex={0}
            role="region"
            aria-label={t('maintenance.sensors')}
          >
            <MaintenanceView state={state} />
          </div>
        }
      />
    );
  }
  const message: ScreenMessage | null =
    answer?.kind === 'refused'
      ? { text: t('service.wrong'), tone: 'error' }
      : answer?.kind === 'not_configured'
        ? { text: t('service.notSet'), tone: 'warning' }
        : null;
  return (
    <Screen
      name="service-pin"
      heading={t('service.title')}
      instruction={t('service.instruction')}
      message={message}
      actions={<BackButton onClick={home} />}
      main={
        <Keypad
          value={pin}
          onChange={setPin}
          onSubmit={() => void login()}
          onCancel={home}
          minLength={4}
          maxLength={12}
          groups={[12]}
          label={t('service.instruction')}
          busy={busy}
          secret
        />
      }
    />
  );
}
