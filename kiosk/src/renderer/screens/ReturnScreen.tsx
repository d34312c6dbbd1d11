import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Refusal } from '../../bridge/api';
import { kiosk } from '../bridge';
import { BackButton } from '../parts/BackButton';
import { DoorScreen } from '../parts/DoorScreen';
import { staleOf, type Stale } from '../parts/doorStep';
import { Keypad } from '../parts/Keypad';
import { Screen } from '../parts/Screen';
import { isRefusal, useRefusal } from '../parts/useRefusal';
import { supportPhone, type ScreenProps } from './props';

/** The service's tracking numbers have 13 digits; a scanner may bring longer ones. */
export const TRACKING_MIN = 13;
export const TRACKING_MAX = 20;

export function ReturnScreen({ state, columns, home, back }: ScreenProps) {
  const { t } = useTranslation();
  const [tracking, setTracking] = useState('');
  const [opened, setOpened] = useState<{ door: number; stale: Stale } | null>(null);
  const [busy, setBusy] = useState(false);
  const refusal = useRefusal('return', supportPhone(state));
  const start = async () => {
    setBusy(true);
    refusal.clear();
    const stale = staleOf(state.session);
    const answer = await kiosk
      .startReturn(tracking)
      .catch((): Refusal => ({ kind: 'unavailable' }));
    setBusy(false);
    if (isRefusal(answer)) refusal.refuse(answer);
    else setOpened({ door: answer.door, stale });
  };
  if (opened) {
    return (
      <DoorScreen
        name="return-door"
        state={state}
        columns={columns}
        door={opened.door}
        stale={opened.stale}
        texts={{ open: t('return.put'), done: t('return.thanks'), amiss: t('return.empty') }}
        finish={home}
        openActions={
          <BackButton label={t('return.cancel')} onClick={() => void kiosk.cancelReturn()} />
        }
        choiceActions={
          <>
            <button type="button" className="secondary" onClick={() => void kiosk.reopenReturn()}>
              {t('return.reopen')}
            </button>
            <button type="button" className="primary" onClick={() => void kiosk.finishReturn()}>
              {t('return.keep')}
            </button>
          </>
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
      actions={<BackButton onClick={back} />}
      main={
        <Keypad
          value={tracking}
          onChange={setTracking}
          onSubmit={() => void start()}
          onCancel={back}
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
