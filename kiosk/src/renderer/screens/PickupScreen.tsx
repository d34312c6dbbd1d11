import { useTranslation } from 'react-i18next';
import { kiosk } from '../bridge';
import { CodeEntry } from '../parts/CodeEntry';
import { DoorScreen } from '../parts/DoorScreen';
import type { ScreenProps } from './props';

/** Issued pickup codes have eight digits, shown 4-4. */
const CODE_LENGTH = 8;

export function PickupScreen({ state, columns, home, back }: ScreenProps) {
  const { t } = useTranslation();
  return (
    <CodeEntry
      name="pickup"
      task="pickup"
      heading={t('pickup.title')}
      instruction={t('pickup.instruction')}
      state={state}
      back={back}
      keypad={{ minLength: CODE_LENGTH, maxLength: CODE_LENGTH, groups: [4, 4] }}
      request={(code) => kiosk.pickup(code)}
      camera={{ accept: (text) => /^\d{8}$/.test(text), hint: t('scan.hint') }}
      opened={({ door, stale, parcels }) => (
        <DoorScreen
          name="pickup-door"
          state={state}
          columns={columns}
          door={door}
          stale={stale}
          texts={{
            // Issue 27: one code, one door, several parcels: say how many to take.
            open: parcels ? t('sharedDoor.take', { count: parcels }) : t('pickup.take'),
            done: parcels ? t('sharedDoor.thanks') : t('pickup.thanks'),
            amiss: t('pickup.leftInside'),
          }}
          finish={home}
        />
      )}
    />
  );
}
