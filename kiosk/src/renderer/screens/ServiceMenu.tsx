import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TechnicianLogin } from '../../bridge/technician';
import { kiosk } from '../bridge';
import { BackButton } from '../parts/BackButton';
import { Keypad } from '../parts/Keypad';
import { Screen, type ScreenMessage } from '../parts/Screen';
import { MaintenanceView } from './MaintenanceView';
import type { ScreenProps } from './props';

/**
 * The technician's service menu, on the screen itself: a PIN (checked by the core against
 * the hash in the kiosk configuration), then the maintenance view.
 */
export function ServiceMenu({ state, home }: ScreenProps) {
  const { t } = useTranslation();
  const [pin, setPin] = useState('');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<TechnicianLogin | null>(null);
  const login = async () => {
    setBusy(true);
    const result = await kiosk
      .technicianLogin(pin)
      .catch((): TechnicianLogin => ({ kind: 'refused', retryAfterSeconds: 0 }));
    setBusy(false);
    setPin('');
    setAnswer(result);
  };
  if (answer?.kind === 'granted') {
    return (
      <Screen
        name="maintenance"
        heading={t('maintenance.title')}
        instruction={t('service.title')}
        actions={<BackButton onClick={home} label={t('service.leave')} />}
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
