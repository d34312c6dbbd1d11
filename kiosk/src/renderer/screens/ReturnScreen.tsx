import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Refusal } from '../../bridge/api';
import { kiosk } from '../bridge';
import { BackButton } from '../parts/BackButton';
import { Countdown } from '../parts/Countdown';
import { DoorScreen, FINAL_SECONDS } from '../parts/DoorScreen';
import { Keypad } from '../parts/Keypad';
import { Screen } from '../parts/Screen';
import { isRefusal, useRefusal } from '../parts/useRefusal';
import { supportPhone, type ScreenProps } from './props';

/** The service's tracking numbers have 13 digits; a scanner may bring longer ones. */
export const TRACKING_MIN = 13;
export const TRACKING_MAX = 20;

export function ReturnScreen({ state, columns, home }: ScreenProps) {
  const { t } = useTranslation();
  const [tracking, setTracking] = useState('');
  const [door, setDoor] = useState<number | null>(null);
  const [cancelled, setCancelled] = useState(false);
  const [busy, setBusy] = useState(false);
  const refusal = useRefusal('return', supportPhone(state));
  const start = async () => {
    setBusy(true);
    refusal.clear();
    const answer = await kiosk
      .startReturn(tracking)
      .catch((): Refusal => ({ kind: 'unavailable' }));
    setBusy(false);
    if (isRefusal(answer)) refusal.refuse(answer);
    else setDoor(answer.door);
  };
  if (cancelled) {
    return (
      <Screen
        name="return-cancelled"
        heading={t('return.title')}
        instruction={t('return.cancelled')}
        info={<Countdown seconds={FINAL_SECONDS} onEnd={home} />}
        actions={
          <button type="button" className="primary" onClick={home}>
            {t('done')}
          </button>
        }
      />
    );
  }
  if (door !== null) {
    return (
      <DoorScreen
        name="return-door"
        state={state}
        columns={columns}
        door={door}
        expect="item"
        texts={{ open: t('return.put'), done: t('return.thanks'), amiss: t('return.empty') }}
        finish={home}
        openActions={
          <BackButton
            label={t('return.cancel')}
            onClick={() => void kiosk.cancelReturn().then(() => setCancelled(true))}
          />
        }
      />
    );
  }
  return (
    <Screen
      name="return"
      heading={t('return.title')}
      instruction={t('return.instruction')}
      message={refusal.message}
      actions={<BackButton onClick={home} />}
      main={
        <Keypad
          value={tracking}
          onChange={setTracking}
          onSubmit={() => void start()}
          onCancel={home}
          minLength={TRACKING_MIN}
          maxLength={TRACKING_MAX}
          groups={[4]}
          label={t('return.instruction')}
          busy={busy}
          locked={refusal.locked}
          acceptLetters
        />
      }
    />
  );
}
