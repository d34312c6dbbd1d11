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

/** Issued pickup codes have eight digits, shown 4-4. */
const CODE_LENGTH = 8;

export function PickupScreen({ state, columns, home, back }: ScreenProps) {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [opened, setOpened] = useState<{ door: number; stale: Stale } | null>(null);
  const refusal = useRefusal('pickup', supportPhone(state));
  const submit = async () => {
    setBusy(true);
    refusal.clear();
    const stale = staleOf(state.session);
    const answer = await kiosk.pickup(code).catch((): Refusal => ({ kind: 'unavailable' }));
    setBusy(false);
    // A refusal keeps what was typed: one wrong digit is one correction.
    if (isRefusal(answer)) refusal.refuse(answer);
    else setOpened({ door: answer.door, stale });
  };
  if (opened) {
    return (
      <DoorScreen
        name="pickup-door"
        state={state}
        columns={columns}
        door={opened.door}
        stale={opened.stale}
        texts={{ open: t('pickup.take'), done: t('pickup.thanks'), amiss: t('pickup.leftInside') }}
        finish={home}
      />
    );
  }
  return (
    <Screen
      name="pickup"
      heading={t('pickup.title')}
      instruction={t('pickup.instruction')}
      message={refusal.message}
      actions={<BackButton onClick={back} />}
      main={
        <Keypad
          value={code}
          onChange={setCode}
          onSubmit={() => void submit()}
          onCancel={back}
          minLength={CODE_LENGTH}
          maxLength={CODE_LENGTH}
          groups={[4, 4]}
          label={t('pickup.instruction')}
          busy={busy}
          locked={refusal.locked}
        />
      }
    />
  );
}
